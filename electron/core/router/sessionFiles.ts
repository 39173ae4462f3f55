import { constants, promises as fs } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FILE_PARAMS, FOLDER_PARAMS, WRITE_PARAMS, WRITTEN_EXTENSION } from '../upstream/fileParams.js';

/**
 * The folder a session's file tools may use: `<profile files>/<session id>`. Relative paths are taken inside it;
 * absolute paths must point inside it; no path may pass through a symbolic link, so a file written by one session
 * (or planted by anyone) never leads a tool outside the folder.
 */
export function sessionFolder(filesDir: string, sessionId: string): string {
  return join(filesDir, sessionId);
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Fails when any existing part of `path` below `folder` is a symbolic link. */
async function assertNoLinks(folder: string, path: string, field: string): Promise<void> {
  let current = folder;
  for (const part of relative(folder, path).split(sep).filter((segment) => segment !== '')) {
    current = join(current, part);
    let stat;
    try {
      stat = await fs.lstat(current);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) {
      throw new TabmuxError('path_denied', `${field}: ${path} passes through a symbolic link; use a plain path inside your session folder ${folder}`);
    }
  }
}

export function withExtension(path: string, extension: string): string {
  const current = extname(path);
  return `${path.slice(0, path.length - current.length)}${extension}`;
}

/** What a path argument names: a file (upstream may write it under another extension), or a folder. */
export type PathKind = 'file' | 'folder';

/**
 * One path argument resolved inside the session folder, or a `path_denied` error that names the folder. A file is
 * strictly inside: upstream writes `<path>` with its extension replaced (`.png`, `.json`, `.txt`...), which for the
 * folder itself (`.`, `sub/..`, the folder's own path) would be a file beside it; any path strictly inside keeps
 * its written file in the same folder.
 */
export async function confinePath(folder: string, value: string, field: string, writtenExtension?: string, kind: PathKind = 'file'): Promise<string> {
  const path = resolve(folder, value);
  if (!isInside(folder, path)) {
    throw new TabmuxError('path_denied', `${field}: ${value} is outside your session folder; file tools may only use paths inside ${folder} (relative paths are taken there)`);
  }
  if (kind === 'file' && path === folder) {
    throw new TabmuxError('path_denied', `${field}: ${value} names your session folder itself, not a file in it; give the name of a file inside it (relative paths are taken inside ${folder})`);
  }
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  await assertNoLinks(folder, path, field);
  if (writtenExtension !== undefined) {
    await assertNoLinks(folder, withExtension(path, writtenExtension), field);
  }
  return path;
}

/** A path, a `file:` URL (confined as the path it names) or a remote URL (passed on: upstream refuses it itself). */
async function confineValue(folder: string, value: string, field: string, writtenExtension: string | undefined, kind: PathKind): Promise<string> {
  if (/^file:/i.test(value)) {
    let path: string;
    try {
      path = fileURLToPath(value);
    } catch {
      throw new TabmuxError('path_denied', `${field}: ${value} is not a usable file URL; give a path inside your session folder ${folder}`);
    }
    return pathToFileURL(await confinePath(folder, path, field, writtenExtension, kind)).href;
  }
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(value)) {
    return value;
  }
  return confinePath(folder, value, field, writtenExtension, kind);
}

/**
 * Returns the arguments with every file path of the tool confined to the session folder. Strings that are URLs
 * (install_pwa takes one) pass through; upstream refuses remote locations itself.
 */
export async function confineFileArgs(tool: string, args: Readonly<Record<string, unknown>>, folder: string, maxFolderBytes = 0): Promise<Record<string, unknown>> {
  const params = FILE_PARAMS[tool];
  if (!params) {
    return { ...args };
  }
  const writes = (WRITE_PARAMS[tool] ?? []).filter((param) => typeof args[param] === 'string');
  if (maxFolderBytes > 0 && writes.length > 0) {
    await checkRoom(tool, writes, folder, maxFolderBytes);
  }
  const out: Record<string, unknown> = { ...args };
  for (const param of params) {
    const value = out[param];
    const kind: PathKind = FOLDER_PARAMS[tool]?.includes(param) === true ? 'folder' : 'file';
    if (typeof value === 'string') {
      out[param] = await confineValue(folder, value, param, WRITTEN_EXTENSION[tool], kind);
    } else if (Array.isArray(value)) {
      const confined: unknown[] = [];
      for (const [index, item] of value.entries()) {
        confined.push(typeof item === 'string' ? await confineValue(folder, item, `${param}[${index}]`, undefined, kind) : item);
      }
      out[param] = confined;
    }
  }
  return out;
}

/**
 * Refuses a call that would write into a session folder already holding its profile's most (`sessionFilesMaxBytes`):
 * one agent's files cannot fill the disk every session, the activity log and the browser's profile share. A call
 * checked while the folder is below the limit writes its file whole, so a folder ends at most one file past it.
 */
async function checkRoom(tool: string, writes: readonly string[], folder: string, maxFolderBytes: number): Promise<void> {
  const used = await folderBytes(folder, maxFolderBytes);
  if (used >= maxFolderBytes) {
    const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
    throw new TabmuxError(
      'folder_full',
      `${tool} would write into your session folder, which already holds ${mib(used)}, the most one session may keep in this profile ` +
        `(${mib(maxFolderBytes)}); nothing was written. Leave out ${writes.join(' and ')} to get the result in the answer, or go on in a new session.`,
    );
  }
}

/** The bytes the files below `folder` hold (links not followed); counting stops once past `enough`. */
export async function folderBytes(folder: string, enough = Number.POSITIVE_INFINITY): Promise<number> {
  let total = 0;
  const folders = [folder];
  for (let next = folders.pop(); next !== undefined && total < enough; next = folders.pop()) {
    const entries = await fs.readdir(next, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(next, entry.name);
      if (entry.isDirectory()) {
        folders.push(path);
      } else if (entry.isFile()) {
        total += await fs.lstat(path).then((stat) => stat.size, () => 0);
      }
    }
  }
  return total;
}

/**
 * Writes a file the router produces for a session (a snapshot saved with its tokens): created 0600, never through a
 * symbolic link, replacing a plain file of the same name.
 */
export async function writeSessionFile(path: string, text: string): Promise<void> {
  await fs.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const handle = await fs.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}
