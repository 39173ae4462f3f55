import { promises as fs } from 'node:fs';
import type { Logger } from '../platform/Logger.js';
import { exitedWithin, isProcessAlive, killProcessGroup } from '../process/processes.js';
import { chromeHolding, removeSingletonFolder } from '../process/chromeHolding.js';

/**
 * Stops a Chrome left behind by a daemon that died (its pid from the dead daemon's pid file), so a daemon killed
 * with SIGKILL does not leave Chrome holding the profile forever. Only a process whose command line names this
 * user-data-dir is touched: the pid may have been reused by something else since.
 */
export async function stopLeftoverChrome(pid: number, userDataDir: string, logger: Logger): Promise<void> {
  if (!isProcessAlive(pid) || !(await isChromeFor(pid, userDataDir))) {
    return;
  }
  logger.warn(`stopping Chrome pid ${pid} left behind by a daemon that died`);
  killProcessGroup(pid, 'SIGKILL');
  if (await exitedWithin(pid, 5000)) {
    await removeSingletonFolder(userDataDir, pid);
  }
}

async function isChromeFor(pid: number, userDataDir: string): Promise<boolean> {
  try {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(`--user-data-dir=${userDataDir}`);
  } catch {
    return false;
  }
}


/**
 * The Chrome that holds a user-data-dir, by its `SingletonLock` (`<host>-<pid>`), when it is one tabmux launched there
 * (its command line names the folder and tabmux's `--remote-debugging-port=0`). A daemon killed while its Chrome was
 * starting had not recorded that Chrome yet; without this, it would hold the profile until its watchdog closed it.
 */
export async function lockingChrome(userDataDir: string): Promise<number | undefined> {
  const pid = await chromeHolding(userDataDir).catch(() => undefined);
  if (pid === undefined || !(await isChromeFor(pid, userDataDir))) {
    return undefined;
  }
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').includes('--remote-debugging-port=0') ? pid : undefined;
}
