import type { DaemonRunRequest } from '../cli/EntryPoints.js';
import { Daemon } from '../core/Daemon.js';
import { Logger } from '../core/Logger.js';
import { ProfileStore } from '../core/ProfileStore.js';
import { exitOnCrash } from './exitOnCrash.js';

/** Room for Daemon.stop (Chrome alone gets 5 s before SIGKILL) after a crash; past this the process exits anyway. */
const STOP_DEADLINE_MS = 15_000;

/** `tabmux daemon run`: one profile's daemon in this process until it is stopped (by a call or a signal). */
export async function runDaemon(request: DaemonRunRequest): Promise<number> {
  const profile = await new ProfileStore(request.paths).get(request.profile);
  // `daemon start` points stderr at the profile's log file.
  const logger = Logger.toStderr(`daemon:${profile.name}`);
  const starting = Daemon.start({ paths: request.paths, profile, logger, chrome: request.chrome, headless: request.headless });
  // Installed in the same tick as the start, so a crash while Chrome launches is caught too; a daemon that fails to
  // start cleans up after itself.
  exitOnCrash(process, {
    logger,
    stop: () => starting.then((daemon) => daemon.stop(), () => undefined),
    deadlineMs: STOP_DEADLINE_MS,
    exit: (code) => process.exit(code),
  });
  const daemon = await starting;
  const stop = (): void => void daemon.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('SIGHUP', stop);
  await daemon.stopped;
  return 0;
}
