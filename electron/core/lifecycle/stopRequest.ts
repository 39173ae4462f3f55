import { isRecord } from '../../../shared/isRecord.js';
import { stopRequestPath, type TabmuxPaths } from '../platform/paths.js';
import { readFileNoFollow, removeIfExists, writeFileNoFollow } from '../platform/secureFs.js';

/**
 * A stop asked of a daemon that answers nothing, noted before it is signalled: such a daemon may be killed before it
 * removes its pid file, which otherwise reads as a crash to a tray or dashboard watching it (and one that started it
 * would start it again). The note names the daemon's pid; the next daemon of the profile removes it once it holds the
 * profile.
 */
export async function noteStopRequested(paths: TabmuxPaths, profile: string, pid: number): Promise<void> {
  await writeFileNoFollow(stopRequestPath(paths, profile), JSON.stringify({ pid }));
}

/** Whether a stop was asked of the daemon with this pid (see `noteStopRequested`). */
export async function stopWasRequested(paths: TabmuxPaths, profile: string, pid: number): Promise<boolean> {
  try {
    const note: unknown = JSON.parse((await readFileNoFollow(stopRequestPath(paths, profile))) ?? 'null');
    return isRecord(note) && note['pid'] === pid;
  } catch {
    return false;
  }
}

/** The profile has a daemon of its own now: a note about an earlier one is no longer true of anything. */
export function clearStopRequest(paths: TabmuxPaths, profile: string): Promise<void> {
  return removeIfExists(stopRequestPath(paths, profile));
}
