import { promises as fs } from 'node:fs';
import { profileLogFile, type TabmuxPaths } from '../platform/paths.js';

export interface LogTailOptions {
  /** Byte offset to read from: the log's size before this start, so an earlier run's lines are left out. */
  from?: number;
  lines?: number;
}

/** A profile's daemon log from byte `from` on, or '' when it cannot be read. */
export async function readDaemonLog(paths: TabmuxPaths, profile: string, from = 0): Promise<string> {
  const bytes = await fs.readFile(profileLogFile(paths, profile)).catch(() => undefined);
  return bytes ? bytes.subarray(from).toString('utf8') : '';
}

/** The last lines of a profile's daemon log, to show why it failed without sending the user to a file first. */
export async function daemonLogTail(paths: TabmuxPaths, profile: string, options: LogTailOptions = {}): Promise<string> {
  const text = (await readDaemonLog(paths, profile, options.from)).trimEnd();
  if (text === '') {
    return `(nothing was logged; see ${profileLogFile(paths, profile)})`;
  }
  return text.split('\n').slice(-(options.lines ?? 15)).join('\n');
}
