import { constants, promises as fs } from 'node:fs';
import { TabmuxError } from '../../../shared/errors.js';

/**
 * Creates the runtime dir 0700 and refuses one that could have been tampered with: a symlink, owned by someone
 * else, or writable by group/others. Sockets and pid files live there, so it is the real protection for them.
 */
export async function ensureSecureDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') {
    return;
  }
  const stat = await fs.lstat(dir);
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    throw new TabmuxError('insecure_runtime_dir', `runtime dir ${dir} is a symlink or not a directory; remove it and try again`);
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : stat.uid;
  if (stat.uid !== uid) {
    throw new TabmuxError('insecure_runtime_dir', `runtime dir ${dir} is owned by uid ${stat.uid}, not by you (uid ${uid}); remove it or set TABMUX_HOME`);
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new TabmuxError(
      'insecure_runtime_dir',
      `runtime dir ${dir} is writable by group or others (mode ${(stat.mode & 0o777).toString(8)}); run chmod 700 on it`,
    );
  }
}

/** Writes a small file without following a symlink at its path (O_NOFOLLOW), mode 0600. */
export async function writeFileNoFollow(path: string, contents: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  const handle = await fs.open(path, flags, 0o600);
  try {
    await handle.writeFile(contents);
  } finally {
    await handle.close();
  }
}

/** Reads a small file without following a symlink; undefined when it does not exist. */
export async function readFileNoFollow(path: string): Promise<string | undefined> {
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);
  try {
    const handle = await fs.open(path, flags);
    try {
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (isNodeError(error) && error.code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
}

export function isNodeError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}

export async function removeIfExists(path: string): Promise<void> {
  await fs.rm(path, { force: true });
}
