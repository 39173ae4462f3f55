import { constants, promises as fs } from 'node:fs';
import { extname, join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import { isNodeError } from '../platform/secureFs.js';

/** The longest name a saved download keeps (in UTF-16 units; well under the file systems' 255 bytes for ASCII). */
const MAX_NAME_LENGTH = 120;
/** How many " (n)" suffixes are tried before a download is given up on. */
const MAX_SUFFIX = 999;

/**
 * A download's file name as saved: the browser's suggestion (which the page chose) with folders, control and
 * formatting characters taken out, no leading dots (no hidden files, no `..`), and cut to a sane length.
 */
export function downloadName(suggested: string): string {
  const base = suggested.split(/[/\\]/).at(-1) ?? '';
  // Control characters and Unicode format characters (bidi overrides among them) would mislead whoever lists the folder.
  const clean = base
    .replace(/[\p{Cc}\p{Cf}]/gu, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  if (clean === '') {
    return 'download';
  }
  if (clean.length <= MAX_NAME_LENGTH) {
    return clean;
  }
  const extension = extname(clean).slice(0, 16);
  return `${clean.slice(0, MAX_NAME_LENGTH - extension.length)}${extension}`;
}

/** Creates `segments` below `root` one by one (0700), refusing any that exists as anything but a plain folder. */
async function folderBelow(root: string, segments: readonly string[]): Promise<string> {
  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  let current = root;
  for (const segment of segments) {
    current = join(current, segment);
    try {
      await fs.mkdir(current, { mode: 0o700 });
    } catch (error) {
      if (!isNodeError(error) || error.code !== 'EEXIST') {
        throw error;
      }
    }
    const stat = await fs.lstat(current);
    if (stat.isSymbolicLink() || !stat.isDirectory()) {
      throw new TabmuxError('path_denied', `${current} is not a plain folder (a symbolic link?); downloads are kept only in plain folders`);
    }
  }
  return current;
}

/** `name`, then `name (1).ext`, `name (2).ext`, … */
function candidate(name: string, index: number): string {
  if (index === 0) {
    return name;
  }
  const extension = extname(name);
  return `${name.slice(0, name.length - extension.length)} (${index})${extension}`;
}

/**
 * Moves a finished download out of the staging folder into `segments` below `root` (a folder of tabmux's own),
 * creating the folders as needed. Nothing is replaced and no link is followed: the file is linked in under a name
 * nobody has taken (`link` fails on any existing entry, a symbolic link included), then the staged name is removed.
 * Returns the saved file's path.
 */
export async function placeDownload(staged: string, root: string, segments: readonly string[], suggested: string): Promise<string> {
  const folder = await folderBelow(root, segments);
  const name = downloadName(suggested);
  await fs.chmod(staged, 0o600);
  for (let index = 0; index <= MAX_SUFFIX; index++) {
    const path = join(folder, candidate(name, index));
    try {
      await fs.link(staged, path);
    } catch (error) {
      if (isNodeError(error) && error.code === 'EEXIST') {
        continue;
      }
      if (!isNodeError(error) || error.code !== 'EXDEV') {
        throw error;
      }
      // Another file system (a mounted data folder): an exclusive copy, which fails on any existing entry as well.
      try {
        await fs.copyFile(staged, path, constants.COPYFILE_EXCL);
      } catch (copyError) {
        if (isNodeError(copyError) && copyError.code === 'EEXIST') {
          continue;
        }
        throw copyError;
      }
    }
    await fs.rm(staged, { force: true });
    return path;
  }
  throw new TabmuxError('path_denied', `${folder} already holds ${MAX_SUFFIX} files named like ${name}`);
}
