import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
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
