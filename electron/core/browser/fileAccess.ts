import { lstatSync, readlinkSync, statfsSync, statSync, type BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Whose tab a `file:` request comes from, as the browser's own ids tell (see `ControlSurfaceGuard`):
 * - `session`: an agent session's tab (or a popup of one): it may read its session's folder and nothing else.
 * - `user`: a tab of a browser the user runs that no session owns: Chrome's own file access, less tabmux's folders,
 *   `/dev` and the process file system.
 * - `nobody`: a tab no session owns in a browser tabmux launched, or a request whose tab cannot be told: no files.
 */
export type FileScope = { kind: 'session'; folder: string } | { kind: 'user' } | { kind: 'nobody' };

export const NO_FILES: FileScope = { kind: 'nobody' };
export const USER_FILES: FileScope = { kind: 'user' };

/** `PROC_SUPER_MAGIC`: the process file system, wherever it is mounted. */
const PROC_FS = 0x9fa0n;
/** Linux's own limit on symbolic links followed in one path (`MAXSYMLINKS`). */
const MAX_LINKS = 40;

/** A file's identity: the same whatever path names it, and whatever case a case-insensitive file system ignores. */
type FileId = string;

const idOf = (stat: BigIntStats): FileId => `${stat.dev}:${stat.ino}`;

function idOfPath(path: string): FileId | undefined {
  try {
    return idOf(statSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}

function onProcFs(directory: string): boolean {
  try {
    return statfsSync(directory, { bigint: true }).type === PROC_FS;
  } catch {
    return false;
  }
}

interface Walked {
  /** The identity of every existing directory from `/` down to the file, and of the file itself when it exists. */
  chain: FileId[];
}

/**
 * Resolves a path as the kernel does when the browser opens it, one component at a time, following symbolic links
 * and `..` after them. The daemon is not the browser's process: every link of the process file system (`/proc/self`,
 * `/proc/<pid>/fd/<n>`, and `/dev/fd` through it) names something else in the browser than here, so a path that enters
 * the process file system, wherever it is mounted, is refused rather than resolved.
 */
function walk(path: string): Walked | { refusal: string } {
  const pending = path.split('/');
  let current = '/';
  const root = idOfPath('/');
  const chain: FileId[] = root === undefined ? [] : [root];
  let links = 0;
  for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
    if (part === '' || part === '.') {
      continue;
    }
    if (part === '..') {
      // `current` holds no links, so its parent is what the kernel finds.
      if (current !== '/') {
        current = dirname(current);
        chain.pop();
      }
      continue;
    }
    const next = join(current, part);
    let stat: BigIntStats;
    try {
      stat = lstatSync(next, { bigint: true });
    } catch {
      // Nothing is there (for the browser either): the rest cannot be opened, and is kept as written.
      return { chain };
    }
    if (stat.isSymbolicLink()) {
      if (++links > MAX_LINKS) {
        return { refusal: `${path} passes through too many symbolic links` };
      }
      let target: string;
      try {
        target = readlinkSync(next, 'utf8');
      } catch {
        return { refusal: `${next} changed while it was looked at` };
      }
      pending.unshift(...target.split('/'));
      if (target.startsWith('/')) {
        current = '/';
        chain.splice(1);
      }
      continue;
    }
    if (stat.isDirectory() && onProcFs(next)) {
      return { refusal: `${next} is the process file system, whose entries name the browser's own open files and memory` };
    }
    current = next;
    chain.push(idOf(stat));
  }
  return { chain };
}

/** The path a `file:` URL names, or why it names none tabmux can check. */
function pathOf(url: URL): string | { refusal: string } {
  if (url.host !== '') {
    // Chrome's reading of a host in a file URL is its own; only plain local paths are checked and let through.
    return { refusal: 'a file URL with a host' };
  }
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return { refusal: 'a file URL that does not decode' };
  }
  return path.includes('\0') ? { refusal: 'a file URL with a NUL byte' } : path;
}

export interface FileRoots {
  /** tabmux's own folders (config, data, runtime), refused to every tab. */
  protectedRoots: readonly string[];
}

/**
 * Why a tab may not read the file a `file:` URL names, or undefined when it may. An allow-list for sessions: the
 * file, once every link is resolved, must be inside the session's folder (compared by identity, so no spelling of a
 * path and no link changes the answer). A directory listing is a request for the directory, checked the same way.
 */
export function fileRefusal(url: URL, scope: FileScope, roots: FileRoots): string | undefined {
  if (scope.kind === 'nobody') {
    return 'a tab of no agent session: agents read files from their own session folder only';
  }
  const path = pathOf(url);
  if (typeof path !== 'string') {
    return path.refusal;
  }
  const walked = walk(path);
  if ('refusal' in walked) {
    return walked.refusal;
  }
  if (scope.kind === 'session') {
    const folder = idOfPath(scope.folder);
    return folder !== undefined && walked.chain.includes(folder) ? undefined : `${path} is outside the session's folder ${scope.folder}`;
  }
  for (const denied of [...roots.protectedRoots, '/dev']) {
    const id = idOfPath(denied);
    if (id !== undefined && walked.chain.includes(id)) {
      return `${path} is in ${denied}`;
    }
  }
  return undefined;
}
