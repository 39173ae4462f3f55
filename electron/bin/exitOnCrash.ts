import type { Logger } from '../core/platform/Logger.js';
import { withDeadline } from '../../shared/withDeadline.js';

/** The part of `process` this needs; tests pass an EventEmitter. */
export interface CrashSource {
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}

export interface ExitOnCrashOptions {
  logger: Logger;
  /** Stops what the process runs; called once, on the first crash. */
  stop: () => Promise<void>;
  /** How long `stop` may take before the process exits anyway. */
  deadlineMs: number;
  exit: (code: number) => void;
}

/**
 * A bug that escapes every handler must not leave a half-working process behind nor die without a word: the error
 * goes to the log, then the process stops what it runs (within a deadline, since the bug may have broken that too)
 * and exits with code 1. Later crashes while stopping are logged and otherwise ignored.
 */
export function exitOnCrash(source: CrashSource, options: ExitOnCrashOptions): void {
  const { logger } = options;
  let crashed = false;
  const crash = (what: string, error: unknown): void => {
    logger.error(`${what}: ${describe(error)}`);
    if (crashed) {
      return;
    }
    crashed = true;
    logger.error(`stopping after the ${what}`);
    const stopped = options.stop().then(
      () => true,
      (stopError: unknown) => {
        logger.error(`stopping failed: ${describe(stopError)}`);
        return true;
      },
    );
    void withDeadline(stopped, options.deadlineMs, false).then((inTime) => {
      if (!inTime) {
        logger.error(`did not stop within ${options.deadlineMs} ms; exiting anyway`);
      }
      options.exit(1);
    });
  };
  source.on('uncaughtException', (error) => crash('uncaught exception', error));
  source.on('unhandledRejection', (reason) => crash('unhandled promise rejection', reason));
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}
