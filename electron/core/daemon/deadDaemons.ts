import { findOrphanChrome } from '../browser/findOrphanChrome.js';
import type { LaunchedBrowser } from '../browser/LaunchedBrowser.js';
import { lockingChrome, stopLeftoverChrome } from '../browser/stopLeftoverChrome.js';
import { daemonPidFileSchema } from '../lifecycle/DaemonPidFile.js';
import type { Logger } from '../platform/Logger.js';
import { clearStaleSocket } from '../transport/SocketServer.js';

export interface DeadDaemonsLeft {
  /** The profile's socket path. */
  socketPath: string;
  /** What dead daemons left in the pid file the new daemon took over (see ClaimFile). */
  replaced: readonly unknown[];
  /** The new daemon's browser when tabmux launches it; undefined for a browser it does not run. */
  browser: LaunchedBrowser | undefined;
  /** The profile's Chrome user-data-dir. */
  userDataDir: string;
  logger: Logger;
}

/**
 * A daemon that died (SIGKILL, a crash) left its Chrome, which its watchdog keeps running for the grace period, and
 * its socket, which refuses every client. The new daemon adopts that Chrome, tabs and all, when it checks out as this
 * profile's (findOrphanChrome); any other leftover Chrome, which would hold the user-data-dir, is stopped. The
 * socket goes before the new daemon publishes its own.
 */
export async function cleanUpAfterDeadDaemons(left: DeadDaemonsLeft): Promise<void> {
  const { browser, userDataDir, logger } = left;
  // The socket first: until it goes, clients find one that refuses them and wait, rather than a missing one.
  await clearStaleSocket(left.socketPath);
  let adopted = false;
  for (const record of left.replaced) {
    const previous = daemonPidFileSchema.safeParse(record);
    logger.warn(`took the profile over from a daemon that is gone${previous.success ? ` (pid ${previous.data.pid})` : ''}`);
    if (!previous.success || previous.data.chromePid === null) {
      continue;
    }
    const { chromePid, chromePort, watchdogPid } = previous.data;
    const orphan = browser && !adopted ? await findOrphanChrome({ chromePid, userDataDir: previous.data.userDataDir, chromePort: chromePort ?? undefined, watchdogPid }, userDataDir, logger) : undefined;
    if (browser && orphan) {
      logger.info(`adopting Chrome pid ${orphan.pid} (port ${orphan.port}) from the daemon that is gone`);
      browser.adopt(orphan);
      adopted = true;
    } else {
      await stopLeftoverChrome(chromePid, previous.data.userDataDir, logger);
    }
  }
  const unrecorded = browser && !adopted && left.replaced.length > 0 ? await lockingChrome(userDataDir) : undefined;
  if (unrecorded !== undefined) {
    await stopLeftoverChrome(unrecorded, userDataDir, logger);
  }
}
