import { promises as fs } from 'node:fs';
import { pidFilePath, profileLogFile, type TabmuxPaths } from '../paths.js';
import { readPidFile } from '../pidFile.js';
import { isProcessAlive } from '../processes.js';

export type DaemonExit = 'stopped' | 'crashed';

/**
 * Tells a clean stop from a crash after a daemon's socket closed. A daemon that stops cleanly (`tabmux daemon stop`,
 * a signal) removes its pid file before it exits; one that was killed or crashed leaves it behind.
 */
export async function classifyDaemonExit(paths: TabmuxPaths, profile: string, pid: number, timeoutMs = 20_000): Promise<DaemonExit> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const owner = (await readPidFile(pidFilePath(paths, profile)))?.pid;
    if (owner !== pid) {
      return 'stopped';
    }
    if (!isProcessAlive(pid) || Date.now() > deadline) {
      return 'crashed';
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The last lines of a profile's daemon log, to show why it died without sending the user to a file first. */
export async function daemonLogTail(paths: TabmuxPaths, profile: string, lines = 12): Promise<string> {
  const file = profileLogFile(paths, profile);
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const tail = text.trimEnd().split('\n').slice(-lines).join('\n');
  return tail || `(the log ${file} is empty)`;
}
