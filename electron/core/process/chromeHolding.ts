import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { isNodeError } from '../platform/secureFs.js';
import { isProcessAlive } from './processes.js';

/**
 * The live Chrome on this host that holds a user-data-dir, by the `SingletonLock` symlink (`<host>-<pid>`) Chrome keeps
 * in a folder it holds; undefined when none does.
 */
export async function chromeHolding(userDataDir: string): Promise<number | undefined> {
  let target: string;
  try {
    target = await fs.readlink(join(userDataDir, 'SingletonLock'));
  } catch (error) {
    if (isNodeError(error) && (error.code === 'ENOENT' || error.code === 'EINVAL' || error.code === 'ENOTDIR')) {
      return undefined;
    }
    throw error;
  }
  const dash = target.lastIndexOf('-');
  const host = target.slice(0, dash);
  const pid = Number.parseInt(target.slice(dash + 1), 10);
  return host === hostname() && Number.isInteger(pid) && isProcessAlive(pid) ? pid : undefined;
}

/** What Chrome keeps in the folder its `SingletonSocket` lives in, and nothing else. */
const SINGLETON_FOLDER_ENTRIES: ReadonlySet<string> = new Set(['SingletonSocket', 'SingletonCookie']);

/**
 * Removes the temp folder (`/tmp/org.chromium.Chromium.XXXXXX`) that the Chrome with this pid kept its singleton socket
 * in, once that Chrome has exited: a Chrome that exits cleanly removes it itself, one that was killed or crashed leaves
 * it behind, one per run. Only when the user-data-dir's `SingletonLock` still names that pid on this host (a Chrome
 * started there since has its own) and the folder holds nothing but what Chrome puts there. Returns whether it did.
 */
export async function removeSingletonFolder(userDataDir: string, pid: number): Promise<boolean> {
  try {
    const lock = await fs.readlink(join(userDataDir, 'SingletonLock'));
    if (lock !== `${hostname()}-${pid}` || isProcessAlive(pid)) {
      return false;
    }
    const socket = await fs.readlink(join(userDataDir, 'SingletonSocket'));
    const folder = dirname(socket);
    if (basename(socket) !== 'SingletonSocket' || !isAbsolute(folder) || folder === dirname(folder)) {
      return false;
    }
    const entries = await fs.readdir(folder);
    if (!entries.every((entry) => SINGLETON_FOLDER_ENTRIES.has(entry))) {
      return false;
    }
    await fs.rm(folder, { recursive: true, force: true });
    return true;
  } catch {
    // No singleton files (Chrome removed them, or never made them), or a folder that is not ours to read.
    return false;
  }
}
