import { constants, promises as fs } from 'node:fs';
import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import { isSameProcessRunning, ownIdentity } from './processState.js';

/** Who holds a claim, as its file records it. */
export interface ClaimHolder {
  pid: number;
  /** The holder's process identity when it claimed (see processState.ts); absent in files an older tabmux wrote. */
  identity?: string | undefined;
  /** Random, different for every claim; absent in files an older tabmux wrote. */
  nonce?: string | undefined;
}

export type ClaimOutcome =
  /** Claimed. `replaced` holds the records of the dead holders this claim took over, for cleaning up after them. */
  | { claim: ClaimFile; replaced: unknown[] }
  /** A running process holds it. */
  | { holder: ClaimHolder };

/** A file found at a claim's path: its key (which claim it is) and, when it reads as one, its holder. */
interface FoundClaim {
  key: string;
  holder: ClaimHolder | undefined;
  record: unknown;
}

/** Claims taken over inside claims taken over: each level needs a taker that died mid-takeover, so a few is plenty. */
const MAX_TAKEOVER_DEPTH = 4;
/** Rounds of "exists, stale, taken over, exists again" before giving up; only a stream of crashing starters gets far. */
const MAX_ATTEMPTS = 200;

/**
 * A file that at most one running process holds, claimed atomically and taken over safely from a holder that died.
 *
 * Claiming writes the whole record to a private file and hard-links it into place: `link` fails when the name exists,
 * so of any number of claimers exactly one succeeds, and a reader never sees a half-written record.
 *
 * A holder that died (gone, a zombie, or its pid now another process's: see `isSameProcessRunning`) leaves a stale
 * file. Removing it by name would race: a second taker could remove the fresh claim the first one just linked. So a
 * stale claim with key K is taken over only by the process that claims `<file>.takeover-K` (the same way, through
 * this very function); it checks that K is still in place and renames its own record over it, in one step. While K
 * is in place no one else can change the name (claimers only link where nothing is), so the taker is the one that
 * holds the file next, and the one told whose claim it replaced (to clean up after the dead holder). A fresh claim
 * always has a new key, so a taker holding an older key's marker never touches it. A taker that dies holding a
 * marker leaves the marker stale, and it is taken over one level down in the same way.
 *
 * A process killed in the few milliseconds of a claim can leave a `.new-` or `.takeover-` file behind;
 * they are never read as claims, and deleting them by pattern would race with live claimers, so they stay.
 */
export class ClaimFile {
  readonly path: string;
  readonly #nonce: string;
  readonly #identity: string | undefined;

  private constructor(path: string, nonce: string, identity: string | undefined) {
    this.path = path;
    this.#nonce = nonce;
    this.#identity = identity;
  }

  /** Claims `path` with `record` (to which pid, identity and nonce are added), or reports the running holder. */
  static async acquire(path: string, record: Record<string, unknown>): Promise<ClaimOutcome> {
    const nonce = randomKey();
    const identity = ownIdentity();
    const replaced: unknown[] = [];
    const outcome = await claimPath(path, recordText(record, identity, nonce), replaced, 0);
    return outcome === 'claimed' ? { claim: new ClaimFile(path, nonce, identity), replaced } : { holder: outcome };
  }

  /** Whether the file at the path is still this claim. */
  async held(): Promise<boolean> {
    return (await readClaim(this.path))?.key === this.#nonce;
  }

  /**
   * Replaces the record (atomically, by rename) while keeping the claim. False, and nothing written, when the file is
   * no longer this claim: another process's record is never overwritten.
   */
  async update(record: Record<string, unknown>): Promise<boolean> {
    if (!(await this.held())) {
      return false;
    }
    const staging = `${this.path}.new-${randomKey()}`;
    await writeExclusive(staging, recordText(record, this.#identity, this.#nonce));
    try {
      await fs.rename(staging, this.path);
    } catch (error) {
      await fs.rm(staging, { force: true });
      throw error;
    }
    return true;
  }

  /** Removes the file if it is still this claim; another process's claim is left alone. */
  async release(): Promise<void> {
    if (await this.held()) {
      await fs.rm(this.path, { force: true });
    }
  }
}

/** The running holder of a claim file, or undefined when there is none (no file, or its holder is dead). */
export async function runningHolder(path: string): Promise<ClaimHolder | undefined> {
  const found = await readClaim(path);
  return found?.holder !== undefined && isHolderRunning(found.holder) ? found.holder : undefined;
}

export function isHolderRunning(holder: ClaimHolder): boolean {
  // A record with this process's pid but no identity was not written by this process (which records one): the pid
  // was reused.
  if (holder.pid === process.pid && holder.identity === undefined) {
    return false;
  }
  return isSameProcessRunning(holder.pid, holder.identity);
}

async function claimPath(path: string, text: string, replaced: unknown[], depth: number): Promise<'claimed' | ClaimHolder> {
  const mine = `${path}.new-${randomKey()}`;
  await writeExclusive(mine, text);
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (await linkIfAbsent(mine, path)) {
        return 'claimed';
      }
      const found = await readClaim(path);
      if (found === undefined) {
        // Removed between the link and the read: try again.
        continue;
      }
      if (found.holder !== undefined && isHolderRunning(found.holder)) {
        return found.holder;
      }
      if (depth >= MAX_TAKEOVER_DEPTH) {
        throw cannotClaim(path, `takeovers of ${path} keep dying halfway`);
      }
      if (await takeOver(path, found, mine, replaced, depth)) {
        return 'claimed';
      }
    }
  } finally {
    await fs.rm(mine, { force: true });
  }
  throw cannotClaim(path, `${path} kept changing hands`);
}

/**
 * Replaces the stale claim `found` at `path` with this process's record (`mine`), if this process wins the right to
 * (see ClaimFile). True when `path` is now this process's claim.
 */
async function takeOver(path: string, found: FoundClaim, mine: string, replaced: unknown[], depth: number): Promise<boolean> {
  const marker = `${path}.takeover-${found.key}`;
  const markerNonce = randomKey();
  const taken = await claimPath(marker, recordText({}, ownIdentity(), markerNonce), [], depth + 1);
  if (taken !== 'claimed') {
    // Another running process is taking this one over; look again in a moment.
    await new Promise((resolve) => setTimeout(resolve, 10));
    return false;
  }
  try {
    // Only this process acts on claim `found.key` now, and its dead holder cannot: if it is still in place, it stays
    // in place until replaced here.
    if ((await readClaim(path))?.key !== found.key) {
      return false;
    }
    // `mine` stays for another attempt should this fail; a second name of it is renamed over the stale claim.
    const swap = `${path}.new-${randomKey()}`;
    await fs.link(mine, swap);
    try {
      await fs.rename(swap, path);
    } catch (error) {
      await fs.rm(swap, { force: true });
      throw error;
    }
    replaced.push(found.record);
    return true;
  } finally {
    if ((await readClaim(marker))?.key === markerNonce) {
      await fs.rm(marker, { force: true });
    }
  }
}

async function readClaim(path: string): Promise<FoundClaim | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    if (isCode(error, 'ENOENT')) {
      return undefined;
    }
    if (isCode(error, 'ELOOP')) {
      // A symlink planted at the claim's path: no holder, and its inode is the link's, which lstat gives.
      const stat = await fs.lstat(path).catch(() => undefined);
      return stat === undefined ? undefined : { key: `ino${stat.ino}`, holder: undefined, record: undefined };
    }
    throw error;
  }
  try {
    const [stat, text] = await Promise.all([handle.stat(), handle.readFile('utf8')]);
    const record = parseJson(text);
    const holder = asHolder(record);
    return { key: holder?.nonce ?? `ino${stat.ino}`, holder, record };
  } finally {
    await handle.close();
  }
}

function asHolder(value: unknown): ClaimHolder | undefined {
  if (!isRecord(value) || typeof value['pid'] !== 'number' || !Number.isInteger(value['pid'])) {
    return undefined;
  }
  const identity = typeof value['identity'] === 'string' ? value['identity'] : undefined;
  const nonce = typeof value['nonce'] === 'string' ? value['nonce'] : undefined;
  return { pid: value['pid'], identity, nonce };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function recordText(record: Record<string, unknown>, identity: string | undefined, nonce: string): string {
  return `${JSON.stringify({ ...record, pid: process.pid, ...(identity === undefined ? {} : { identity }), nonce })}\n`;
}

/** Creates a new file (never an existing one, never through a symlink), mode 0600, with `text`. */
async function writeExclusive(path: string, text: string): Promise<void> {
  const handle = await fs.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

async function linkIfAbsent(from: string, to: string): Promise<boolean> {
  try {
    await fs.link(from, to);
    return true;
  } catch (error) {
    if (isCode(error, 'EEXIST')) {
      return false;
    }
    if (isCode(error, 'EPERM') || isCode(error, 'ENOTSUP') || isCode(error, 'ENOSYS')) {
      throw new TabmuxError(
        'daemon_start_failed',
        `could not claim ${to}: its folder's file system has no hard links, which claiming needs; set TABMUX_HOME (or XDG_RUNTIME_DIR) to a folder on a local disk`,
        { cause: error },
      );
    }
    throw error;
  }
}

function isCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

/** 16 hex digits. node:crypto is loaded on this first use: the agents' commands, which only read claims, never need it. */
function randomKey(): string {
  return process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex');
}

function cannotClaim(path: string, why: string): TabmuxError {
  return new TabmuxError('daemon_start_failed', `could not claim ${path}: ${why}; check what keeps starting and dying there, then start again`);
}
