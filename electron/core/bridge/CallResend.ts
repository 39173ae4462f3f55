import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import type { Logger } from '../platform/Logger.js';
import type { DaemonLink } from './DaemonLink.js';

export interface CallResendOptions {
  link: DaemonLink;
  logger: Logger;
  /** The bridge's own session; undefined before it has one, and when agents name theirs on each call. */
  session: () => string | undefined;
  /** Whether upstream marks the tool read-only (the tool list is asked for first when it was not yet). */
  readOnly: (name: string) => Promise<boolean>;
}

/** Why a call is sent again, by the code it failed with (a read-only one cut off by a lost connection otherwise). */
const WHY: Partial<Record<string, string>> = { not_delivered: 'it never reached the daemon', daemon_restarting: 'a restart kept it from running' };

/**
 * Which of the bridge's failed calls go to the daemon once more: one no daemon got, one a restart kept from running
 * (once that daemon has let its connection go), and a read-only tool of the bridge's own session cut off by a lost
 * daemon connection, when the daemon that answers now kept that session (a crash or restart it recovered from).
 * After a stop the session is gone, and the failure is the answer. Never a call the client cancelled meanwhile.
 */
export class CallResend {
  constructor(private readonly options: CallResendOptions) {}

  /** Whether to send the call again; says so in the log when it does. `cancelled` is asked last, after any wait. */
  async decide(name: string, error: unknown, cancelled: () => boolean): Promise<boolean> {
    if (!(await this.#mayRunAgain(name, error)) || cancelled()) {
      return false;
    }
    this.options.logger.info(`${name} did not run or was cut off; sending it again (${WHY[TabmuxError.from(error).code] ?? 'it is read-only'})`);
    return true;
  }

  async #mayRunAgain(name: string, error: unknown): Promise<boolean> {
    const { logger, link } = this.options;
    const code = error instanceof TabmuxError ? error.code : undefined;
    if (code === 'not_delivered') {
      // No daemon got it: sending it now is its first run, whatever the tool.
      return true;
    }
    if (code === 'daemon_restarting') {
      // A restart kept it from running: the next daemon runs it first. This connection closes once the restart has
      // answered the calls under way; the call then goes on a new one.
      logger.info(`${name} did not run: the daemon is restarting; it goes to the next daemon once this one lets go`);
      await link.current?.whenLetGo();
      return true;
    }
    const session = this.options.session();
    if (code !== 'daemon_not_running' || session === undefined) {
      return false;
    }
    try {
      // Asking for the tool list reconnects (starting the daemon again when needed), which running the call again needs anyway.
      if (!(await this.options.readOnly(name))) {
        return false;
      }
      const { sessions } = await (await link.client()).call('tabmux/session.list');
      if (!sessions.some((info) => info.id === session)) {
        logger.info(`${name} is not sent again: the daemon that answers now does not have session ${session}`);
        return false;
      }
      return true;
    } catch (failure) {
      logger.warn(`${name} is not sent again: could not reach the daemon to check its session (${TabmuxError.from(failure).message})`);
      return false;
    }
  }
}

/** The tool a client's `tools/call` line names (the client's own request, read only when it must be run again). */
export function toolNameOf(line: Buffer): string | undefined {
  try {
    const request: unknown = JSON.parse(line.toString('utf8'));
    const params = isRecord(request) ? request['params'] : undefined;
    return isRecord(params) && typeof params['name'] === 'string' ? params['name'] : undefined;
  } catch {
    return undefined;
  }
}
