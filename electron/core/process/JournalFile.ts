import { createHash, randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { withDeadline } from '../../../shared/withDeadline.js';

/**
 * A small file that holds the latest version of some state, for the next daemon to read should this one die.
 *
 * Crash-safe by write-then-rename: each version goes to a new private file, then replaces the journal in one rename,
 * so a reader sees a whole version, old or new, never half of one. The text carries a SHA-256 of its body as well:
 * a file system that does not keep rename atomic across a crash (or a copy cut short) gives a body whose checksum
 * fails, which reads as no journal rather than as a wrong one.
 */
export class JournalFile<T> {
  readonly path: string;
  readonly #onError: (error: unknown) => void;
  readonly #debounceMs: number;
  readonly #body: (value: T) => unknown;
  #timer: NodeJS.Timeout | undefined;
  #pending: (() => T) | undefined;
  /** Tells, without building the state, whether it still reads as the version last written (see `schedule`). */
  #unchanged: ((written: T) => boolean) | undefined;
  #written = '';
  /** The version last written, as the state it was built from. */
  #writtenState: T | undefined;
  #writing: Promise<void> = Promise.resolve();
  /** Writes asked for and not yet finished. */
  #busy = 0;
  #cleared = false;

  /** `body` gives the JSON object a version of the state is written as. */
  constructor(path: string, onError: (error: unknown) => void, debounceMs: number, body: (value: T) => unknown) {
    this.path = path;
    this.#onError = onError;
    this.#debounceMs = debounceMs;
    this.#body = body;
  }

  /**
   * Asks for a write of what `state` gives when the debounce ends (read then, so the latest state is written).
   * `unchanged`, given the version last written, says whether the state still reads as it: a change the journal does
   * not keep (most of a busy session's) is then told apart without building and serializing the whole state.
   */
  schedule(state: () => T, unchanged?: (written: T) => boolean): void {
    if (this.#cleared) {
      return;
    }
    this.#pending = state;
    this.#unchanged = unchanged;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#debounceMs);
  }

  /** Writes what was scheduled now; resolves once it is on file (a failure goes to `onError`). */
  flush(): Promise<void> {
    const unchanged = this.#pendingUnchanged();
    const pending = this.#takePending();
    if (pending && !unchanged) {
      this.#startWrite(pending());
    }
    return this.#writing;
  }

  /**
   * Before a reply leaves: writes what was scheduled now and waits for it, for at most `limitMs` (a disk that hangs
   * holds no reply for longer; the write goes on). Undefined, with no wait at all, when nothing is scheduled or being
   * written, or when what was scheduled reads as the file already does (no write running): the common case of a
   * call whose changes the journal does not keep (the time a session was last used) costs the `unchanged` check, or
   * one serialization when the schedule gave none.
   */
  settle(limitMs: number): Promise<void> | undefined {
    if (this.#pending === undefined && this.#busy === 0) {
      return undefined;
    }
    if (this.#pendingUnchanged()) {
      this.#takePending();
      return undefined;
    }
    const pending = this.#takePending();
    if (pending) {
      const state = pending();
      const body = this.#bodyOf(state);
      if (this.#busy === 0 && body === this.#written) {
        return undefined;
      }
      this.#startWrite(state, body);
    }
    return withDeadline(this.#writing, limitMs, undefined);
  }

  /** Replaces the journal with this state (nothing is written when it is what the file already says). */
  write(state: T): Promise<void> {
    return this.#writeBody(state);
  }

  /** Whether what is scheduled is known to read as the file does, with no write running that could change that. */
  #pendingUnchanged(): boolean {
    const written = this.#writtenState;
    return this.#pending !== undefined && this.#busy === 0 && written !== undefined && this.#unchanged?.(written) === true;
  }

  #takePending(): (() => T) | undefined {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    return pending;
  }

  #bodyOf(state: T): string {
    return `${JSON.stringify(this.#body(state))}\n`;
  }

  #startWrite(state: T, body?: string): void {
    this.#busy++;
    this.#writing = this.#writing
      .then(() => this.#writeBody(state, body))
      .catch((error: unknown) => this.#onError(error))
      .finally(() => {
        this.#busy--;
      });
  }

  async #writeBody(state: T, body = this.#bodyOf(state)): Promise<void> {
    if (body === this.#written) {
      this.#writtenState = state;
      return;
    }
    const text = journalText(body);
    const staging = `${this.path}.new-${randomBytes(8).toString('hex')}`;
    const handle = await fs.open(staging, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    try {
      await fs.rename(staging, this.path);
    } catch (error) {
      await fs.rm(staging, { force: true });
      throw error;
    }
    this.#written = body;
    this.#writtenState = state;
  }

  /**
   * Writes this state now and then stops writing (`daemon restart`): what the router does while it shuts down
   * (closing its sessions) is not what the next daemon should restore.
   */
  async seal(state: T): Promise<void> {
    this.#cleared = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
    await this.#writing.catch(() => undefined);
    await this.write(state);
  }

  /** Stops writing and removes the journal: what it held is over, and no later daemon takes it up. */
  async clear(): Promise<void> {
    this.#cleared = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
    await this.#writing;
    await fs.rm(this.path, { force: true });
    this.#written = '';
    this.#writtenState = undefined;
  }
}

/** The body of a journal file when it reads as a whole one (its checksum holds), parsed as JSON; else undefined. */
export async function readJournalFile(path: string): Promise<unknown> {
  let text: string;
  try {
    const handle = await fs.open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  return parseJournalText(text);
}

export function parseJournalText(text: string): unknown {
  const newline = text.indexOf('\n');
  const head = text.slice(0, newline);
  const body = text.slice(newline + 1);
  if (newline < 0 || head !== `sha256 ${checksum(body)}`) {
    return undefined;
  }
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** A checksum line, then the body. */
function journalText(body: string): string {
  return `sha256 ${checksum(body)}\n${body}`;
}

function checksum(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}
