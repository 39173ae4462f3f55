import { promises as fs } from 'node:fs';
import type { Logger } from '../Logger.js';
import { isProcessAlive, killProcessGroup } from '../processes.js';

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
  await waitGone(pid);
}

async function isChromeFor(pid: number, userDataDir: string): Promise<boolean> {
  try {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(`--user-data-dir=${userDataDir}`);
  } catch {
    return false;
  }
}

async function waitGone(pid: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
