import { TabmuxError } from '../../shared/errors.js';
import type { DaemonRunRequest } from '../cli/EntryPoints.js';
import { Daemon } from '../core/daemon/Daemon.js';
import { awaitRunningDaemon } from '../core/lifecycle/daemonProcess.js';
import { Logger } from '../core/platform/Logger.js';
import type { ProfileEntry } from '../core/profile/ProfileStore.js';
import { ProfileStore } from '../core/profile/ProfileStore.js';
import { exitOnCrash } from './exitOnCrash.js';
import { restoreUserMallocEnv } from '../core/lifecycle/daemonEnv.js';

/** Room for Daemon.stop (Chrome alone gets 5 s before SIGKILL) after a crash; past this the process exits anyway. */
const STOP_DEADLINE_MS = 15_000;
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** How long a daemon that found its profile taken waits for the other daemon to answer (as long as `daemon start` waits). */
const JOIN_TIMEOUT_MS = 60_000;

/**
 * `tabmux daemon run`: one profile's daemon in this process until it is stopped (by a call or a signal). When
 * another daemon already holds the profile, this one waits until that daemon answers, says so, and exits with 0:
 * whoever started it is then served by the running daemon, as with `daemon start`.
 */
export async function runDaemon(request: DaemonRunRequest): Promise<number> {
  restoreUserMallocEnv(process.env);
  const profile = await new ProfileStore(request.paths).get(request.profile);
  // `daemon start` points stderr at the profile's log file.
  const logger = Logger.toStderr(`daemon:${profile.name}`);
  // A signal while the daemon starts (`daemon stop` finds no socket yet and signals it) stops it once started, so it
  // closes the Chrome it launched as on any stop; one while this process waits for another daemon ends the wait. A
  // second signal ends the process at once.
  let stopAsked!: () => void;
  const stopRequested = new Promise<void>((resolve) => (stopAsked = resolve));
  const starting = startOrJoin(request, profile, logger, stopRequested);
  // Installed in the same tick as the start, so a crash while Chrome launches is caught too; a daemon that fails to
  // start cleans up after itself.
  exitOnCrash(process, {
    logger,
    stop: () => starting.then((daemon) => daemon?.stop(), () => undefined),
    deadlineMs: STOP_DEADLINE_MS,
    exit: (code) => process.exit(code),
  });
  const stop = (): void => {
    stopAsked();
    void starting.then((daemon) => daemon?.stop(), () => undefined);
  };
  for (const signal of STOP_SIGNALS) {
    process.once(signal, stop);
  }
  const daemon = await starting;
  if (daemon === undefined) {
    for (const signal of STOP_SIGNALS) {
      process.off(signal, stop);
    }
    return 0;
  }
  await daemon.stopped;
  return 0;
}

/**
 * Starts the daemon, or, when another daemon holds the profile, waits for that one to answer and returns undefined.
 * A holder that goes away without ever answering (it failed to start, or was stopped) leaves the profile free, and
 * this process claims it after all.
 */
async function startOrJoin(request: DaemonRunRequest, profile: ProfileEntry, logger: Logger, stopAsked: Promise<void>): Promise<Daemon | undefined> {
  const deadline = Date.now() + JOIN_TIMEOUT_MS;
  for (;;) {
    try {
      return await Daemon.start({ paths: request.paths, profile, logger, chrome: request.chrome, headless: request.headless, startedBy: request.startedBy });
    } catch (error) {
      if (!(error instanceof TabmuxError) || error.code !== 'daemon_running' || Date.now() >= deadline) {
        throw error;
      }
      logger.info(`${error.message}; waiting for it to answer`);
      const pid = await awaitRunningDaemon(request.paths, profile.name, Math.max(0, deadline - Date.now()), stopAsked);
      if (pid === 'gave up') {
        logger.info('asked to stop while waiting for the other daemon to answer; this process exits');
        return undefined;
      }
      if (pid !== undefined) {
        logger.info(`the daemon for profile ${profile.name} runs as pid ${pid} and answers; this process leaves it serving and exits`);
        return undefined;
      }
    }
  }
}
