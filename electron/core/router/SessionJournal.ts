import { createHash, randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import * as z from 'zod/mini';
import '../../../shared/zodMessages.js';

const journaledPageSchema = z.object({
  /** Chrome's tab id: what a new daemon finds the page by, whatever id its workers give it. */
  tabId: z.string(),
  origin: z.enum(['created', 'attached', 'opened']),
  url: z.string(),
  title: z.string(),
  lastSelectedAt: z.number(),
  current: z.boolean(),
});

const journaledSessionSchema = z.object({
  id: z.string(),
  label: z.nullable(z.string()),
  createdAt: z.number(),
  paused: z.boolean(),
  /** Whether a client held the session: its client reconnects and binds it again. */
  bound: z.boolean(),
  /** The last snapshot epoch: a restored session starts above it, so no token from before names a new snapshot. */
  epoch: z.int(),
  pages: z.array(journaledPageSchema),
});

const journalSchema = z.object({ version: z.literal(1), sessions: z.array(journaledSessionSchema) });

export type JournaledSession = z.infer<typeof journaledSessionSchema>;
export type JournaledPage = z.infer<typeof journaledPageSchema>;

/**
 * How long changes gather before one write when no reply waits on them (a reply does: see `settle`), so a burst of
 * changes costs one write.
 */
export const JOURNAL_DEBOUNCE_MS = 50;

/**
 * What each session of a profile is (id, label, its tabs by Chrome tab id, its current page, bindings and pauses),
 * kept in one small file under the profile's data folder so that a daemon that adopts the Chrome of one that died
 * can restore them.
 *
 * Crash-safe by write-then-rename: each version goes to a new private file, then replaces the journal in one rename,
 * so a reader sees a whole version, old or new, never half of one. The text carries a SHA-256 of its body as well:
 * a file system that does not keep rename atomic across a crash (or a copy cut short) gives a body whose checksum
 * fails, which reads as no journal rather than as wrong sessions.
 */
export class SessionJournal {
  readonly path: string;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #pending: (() => readonly JournaledSession[]) | undefined;
  #written = '';
  #writing: Promise<void> = Promise.resolve();
  /** Writes asked for and not yet finished. */
  #busy = 0;
  #cleared = false;

  constructor(path: string, onError: (error: unknown) => void) {
    this.path = path;
    this.#onError = onError;
  }

  /** Asks for a write of what `sessions` gives when the debounce ends (read then, so the latest state is written). */
  schedule(sessions: () => readonly JournaledSession[]): void {
    if (this.#cleared) {
      return;
    }
    this.#pending = sessions;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, JOURNAL_DEBOUNCE_MS);
  }

  /** Writes what was scheduled now; resolves once it is on file (a failure goes to `onError`). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) {
      const sessions = pending();
      this.#busy++;
      this.#writing = this.#writing
        .then(() => this.write(sessions))
        .catch((error: unknown) => this.#onError(error))
        .finally(() => {
          this.#busy--;
        });
    }
    return this.#writing;
  }

  /**
   * Before a reply leaves: writes what was scheduled now and waits for it, for at most `limitMs` (a disk that hangs
   * holds no reply for longer; the write goes on). Undefined, with no wait at all, when nothing is scheduled or being
   * written: the common case of a call that changed no session costs nothing.
   */
  settle(limitMs: number): Promise<void> | undefined {
    if (this.#pending === undefined && this.#busy === 0) {
      return undefined;
    }
    const written = this.flush();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, limitMs);
    });
    return Promise.race([written, limit]).finally(() => clearTimeout(timer));
  }

  /** Replaces the journal with these sessions (nothing is written when they are what the file already says). */
  async write(sessions: readonly JournaledSession[]): Promise<void> {
    const body = journalBody(sessions);
    if (body === this.#written) {
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
  }

  /**
   * Writes these sessions now and then stops writing (`daemon restart`): what the router does while it shuts down
   * (closing its sessions) is not what the next daemon should restore.
   */
  async seal(sessions: readonly JournaledSession[]): Promise<void> {
    this.#cleared = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
    await this.#writing.catch(() => undefined);
    await this.write(sessions);
  }

  /** Stops writing and removes the journal: the sessions ended, and no later daemon restores them. */
  async clear(): Promise<void> {
    this.#cleared = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
    await this.#writing;
    await fs.rm(this.path, { force: true });
    this.#written = '';
  }
}

/** The sessions a journal holds; none when there is no journal or it does not read as a whole one. */
export async function readSessionJournal(path: string): Promise<JournaledSession[]> {
  let text: string;
  try {
    const handle = await fs.open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return [];
  }
  return parseJournal(text);
}

export function parseJournal(text: string): JournaledSession[] {
  const newline = text.indexOf('\n');
  const head = text.slice(0, newline);
  const body = text.slice(newline + 1);
  if (newline < 0 || head !== `sha256 ${checksum(body)}`) {
    return [];
  }
  try {
    const parsed = journalSchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.sessions : [];
  } catch {
    return [];
  }
}

/** The body: `{"version":1,"sessions":[...]}` and a newline. */
function journalBody(sessions: readonly JournaledSession[]): string {
  return `${JSON.stringify({ version: 1, sessions })}\n`;
}

/** A checksum line, then the body. */
function journalText(body: string): string {
  return `sha256 ${checksum(body)}\n${body}`;
}

function checksum(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}
