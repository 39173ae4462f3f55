import { readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * The temp folder (`<tmp>/org.chromium.Chromium.XXXXXX`) the Chrome on this user-data-dir keeps its singleton socket
 * in, by the link in the user-data-dir; undefined when there is none.
 */
function singletonFolder(userDataDir: string): string | undefined {
  let socket: string;
  try {
    socket = readlinkSync(join(userDataDir, 'SingletonSocket'));
  } catch {
    // No link: Chrome never made one, or removed it on a clean exit.
    return undefined;
  }
  const folder = dirname(socket);
  return basename(socket) === 'SingletonSocket' && dirname(folder) === tmpdir() && basename(folder).startsWith('org.chromium.') ? folder : undefined;
}

/**
 * Kills a Chrome a test started, with its helpers (its process group), and removes the temp folder of its singleton
 * socket, which only a clean quit removes: each kill would leave one. The folder is read before the kill, so a Chrome
 * started on the same user-data-dir right after keeps its own.
 */
export function killChromeGroup(pid: number, userDataDir: string): void {
  const folder = singletonFolder(userDataDir);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
  if (folder !== undefined) {
    rmSync(folder, { recursive: true, force: true });
  }
}
