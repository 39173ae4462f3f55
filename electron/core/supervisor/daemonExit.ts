import { readDaemonPidFile } from '../lifecycle/DaemonPidFile.js';
import { stopWasRequested } from '../lifecycle/stopRequest.js';
import { pidFilePath, type TabmuxPaths } from '../platform/paths.js';
import { isProcessAlive } from '../process/processes.js';

export type DaemonExit = 'stopped' | 'crashed';

/**
 * Tells a clean stop from a crash after a daemon's socket closed. A daemon that stops cleanly (`tabmux daemon stop`,
 * a signal) removes its pid file before it exits; one that was killed or crashed leaves it behind, unless the stop was
 * asked of it (one that answered nothing, ended by its pid: see lifecycle/stopRequest.ts).
 */
export async function classifyDaemonExit(paths: TabmuxPaths, profile: string, pid: number, timeoutMs = 20_000): Promise<DaemonExit> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const owner = await readDaemonPidFile(pidFilePath(paths, profile));
    if (owner?.pid !== pid) {
      return 'stopped';
    }
    if (!isProcessAlive(pid) || Date.now() > deadline) {
      return (await stopWasRequested(paths, profile, pid)) ? 'stopped' : 'crashed';
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
