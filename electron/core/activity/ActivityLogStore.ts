import { promises as fs, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ActivityQueryResult } from '../../../shared/activity.js';
import type { ActivityLogHealth } from '../../../shared/model.js';
import { endsWithNewline, freshLine, nextSegment, retainSegments, type Segment } from './activitySegments.js';
import { CutWrite } from './CutWrite.js';
import { isLocalFileSystem } from './localFileSystem.js';
import { readActivityLog, type ActivityFilter } from './readActivityLog.js';
import type { RetentionSettings } from './RetentionSettings.js';
import { WriteHealth } from './WriteHealth.js';

export interface ActivityLogStoreOptions extends RetentionSettings {
  dir: string;
  /** Told about a write or clean-up that failed; the log keeps going. */
  onError: (error: unknown) => void;
  /** Told when writes start failing (or stall), and when they succeed again. */
  onHealth?: (health: ActivityLogHealth) => void;
  now?: () => number;
  /** How long a caller waits for its entry to reach the OS before it goes on without (a stalled disk). */
  waitMs?: number;
  /**
   * Hand each line to the OS from the calling thread while the log is healthy, instead of through libuv's thread
   * pool. Defaults to whether the folder is on a local file system (see isLocalFileSystem); false always uses the pool.
   */
  directWrites?: boolean;
}

const MAX_SEGMENT_BYTES = 8 * 1024 * 1024;
const RETENTION_PERIOD_MS = 60 * 60_000;
/**
 * How long a call's reply waits for its entry's write: far above a write to the page cache (tens of microseconds),
 * short enough that a stalled disk (a hung network mount) delays each agent once, not for good.
 */
const DEFAULT_WAIT_MS = 500;
/** Entries kept in memory while the disk refuses them (a full disk); past this the oldest are given up on. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;
/**
 * A direct write that took longer than this (a local disk that busy) turns direct writes off for good: from then on
 * lines go through the thread pool, whose wait a reply bounds (`waitMs`).
 */
const SLOW_DIRECT_WRITE_NS = 20_000_000n;

/**
 * One profile's activity log on disk: JSON lines appended to numbered segment files (0600, in a 0700 folder).
 * `append` hands a line to the OS at once (a write in flight takes the lines that come meanwhile in its next write,
 * so a burst of calls costs one write each way, not one per call) and resolves when it is written, so the reply
 * that waits for it never outruns its entry: a daemon killed right after a reply keeps that entry. A disk that
 * refuses a write (full) or stalls keeps the entries in memory, up to a bound, and is tried again; meanwhile
 * `append` resolves at once and `health` says what is wrong.
 *
 * On a local file system a line is handed to the OS by `append` itself (a `write` to the page cache, microseconds),
 * whenever nothing is waiting or being written: the reply that follows needs no trip through libuv's thread pool,
 * whose wake-ups cost an agent's call more than the write (two thread switches, on a machine whose cores the
 * browser keeps busy). Anything else, a network file system, a segment to close, a write in flight, a failure, goes
 * through the pool, as does everything after one direct write that was slow. Every write starts on a fresh line, so a line a
 * failure or a crash cut short never swallows the next entry (readers skip it). A segment is closed once it
 * reaches a tenth of `maxBytes` (at most 8 MiB), and whole segments are removed by size and age when the log opens,
 * when a segment is closed, and every hour.
 */
export class ActivityLogStore {
  readonly #options: ActivityLogStoreOptions;
  readonly #segmentBytes: number;
  readonly #now: () => number;
  readonly #waitMs: number;
  /** Lines not yet written, oldest first, with what they take in memory. */
  #pending: string[] = [];
  #pendingBytes = 0;
  /** Callers waiting for the lines pending or being written now. */
  #waiters: (() => void)[] = [];
  #current: Segment | undefined;
  /** The open file of the segment being written. */
  #file: { number: number; handle: FileHandle } | undefined;
  /** Lines the write running now holds. */
  #inFlight = 0;
  /** The write running now, if any. */
  #writing: Promise<void> | undefined;
  /** Whether the last write failed or stalled: until one succeeds, nobody waits for the disk. */
  #unhealthy = false;
  /** What is wrong with the writes while they fail, and when to try again. */
  readonly #writeHealth: WriteHealth;
  /** After a failed write the file may end inside a line: the next write checks, and starts a fresh one if so. */
  #tailUnknown = false;
  #dropped = 0;
  /** Whether a line may be written from the calling thread (see the class comment); decided when the log opens. */
  #direct = false;
  #ready: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: ActivityLogStoreOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    this.#segmentBytes = Math.max(1024, Math.min(MAX_SEGMENT_BYTES, Math.floor(options.maxBytes / 10)));
    this.#writeHealth = new WriteHealth(this.#now, () => this.#options.onHealth?.(this.health), () => this.#kick());
  }

  get dir(): string {
    return this.#options.dir;
  }

  /** Whether writes succeed; what failed, since when, and what is kept in memory meanwhile. */
  get health(): ActivityLogHealth {
    const error = this.#writeHealth.error;
    return { error: error?.message ?? null, failingSince: error?.since ?? null, pending: this.#pending.length + this.#inFlight, dropped: this.#dropped };
  }

  /** Creates the folder and applies retention; appends made before it are written once it is done. */
  start(): Promise<void> {
    this.#ready ??= this.#start();
    return this.#ready;
  }

  /**
   * Hands a line to the OS. Resolves once it is written, or at once while the disk fails (the line waits in memory
   * for the disk to take it), or after `waitMs` if the disk stalls; never rejects.
   */
  append(line: string): Promise<void> {
    const text = `${line}\n`;
    if (this.#writeDirect(text)) {
      return Promise.resolve();
    }
    this.#pending.push(text);
    this.#pendingBytes += Buffer.byteLength(text);
    this.#dropOverflow();
    if (this.#unhealthy) {
      // The write in flight (a stall) or the retry (a failure) takes it: a full disk is not tried once per call.
      return Promise.resolve();
    }
    const written = new Promise<void>((resolve) => {
      this.#waiters.push(resolve);
      const stalled = setTimeout(() => {
        if (!this.#unhealthy) {
          this.#unhealthy = true;
          this.#writeHealth.report(`writes to ${this.#options.dir} have taken over ${this.#waitMs} ms`);
        }
        resolve();
      }, this.#waitMs);
      stalled.unref();
      this.#waiters.push(() => clearTimeout(stalled));
    });
    this.#kick();
    return written;
  }

  /** Resolves once everything appended so far is written, or the disk refused it. */
  async flush(): Promise<void> {
    while (this.#writing || (this.#pending.length > 0 && !this.#closed)) {
      const before = this.#pending.length;
      this.#kick();
      await this.#writing;
      if (this.#pending.length > 0 && this.#unhealthy && this.#pending.length >= before) {
        // The disk refuses them: flushing again now would spin. They stay for the retry.
        return;
      }
    }
  }

  async query(filter: ActivityFilter): Promise<ActivityQueryResult> {
    await this.flush();
    return readActivityLog(this.#options.dir, filter);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    this.#closed = true;
    this.#writeHealth.stop();
    if (this.#pending.length > 0) {
      this.#options.onError(new Error(`${this.#pending.length} activity log entries could not be written before the daemon stopped`));
    }
    this.#release();
    await this.#closeFile();
  }

  async #start(): Promise<void> {
    await fs.mkdir(this.#options.dir, { recursive: true, mode: 0o700 });
    await fs.chmod(this.#options.dir, 0o700);
    this.#direct = this.#options.directWrites ?? (await isLocalFileSystem(this.#options.dir));
    const segments = await this.#retain();
    const last = segments.at(-1);
    // A segment a crash cut mid-line is left as it is: the next entry starts a segment of its own.
    this.#current = last && last.size < this.#segmentBytes && (await endsWithNewline(last.path, last.size)) ? last : this.#next(last);
    this.#timer = setInterval(() => void this.#retain().catch(this.#options.onError), RETENTION_PERIOD_MS);
    this.#timer.unref();
  }

  /**
   * Writes a line from this thread when that keeps every promise of the pool's path: direct writes are on, the
   * segment's file is open and the line fits in it, nothing is pending or being written (lines stay in order) and the
   * last write succeeded. True once the line is in the file; false leaves it to the pool's path.
   */
  #writeDirect(text: string): boolean {
    const segment = this.#current;
    const file = this.#file;
    if (!this.#direct || this.#writing || this.#pending.length > 0 || this.#unhealthy || this.#tailUnknown || this.#closed || !segment || file?.number !== segment.number) {
      return false;
    }
    const buffer = Buffer.from(text);
    if (segment.size > 0 && segment.size + buffer.length > this.#segmentBytes) {
      return false;
    }
    // A monotonic clock without Node's `performance` (loading it is a few hundred KiB of a long-lived process).
    const started = process.hrtime.bigint();
    let offset = 0;
    try {
      while (offset < buffer.length) {
        offset += writeSync(file.handle.fd, buffer, offset, buffer.length - offset);
      }
    } catch {
      // The pool's path takes the line: it retries, reports the failure and keeps the line meanwhile. A write cut
      // short may leave the file inside this line, so that path starts a fresh one first.
      segment.size += offset;
      if (offset > 0) {
        this.#tailUnknown = true;
      }
      return false;
    }
    segment.size += buffer.length;
    segment.mtimeMs = this.#now();
    if (process.hrtime.bigint() - started > SLOW_DIRECT_WRITE_NS) {
      this.#direct = false;
    }
    return true;
  }

  /** Starts a write of everything pending, unless one runs (it takes what came meanwhile when it is done). */
  #kick(): void {
    if (this.#writing || this.#pending.length === 0 || this.#closed) {
      return;
    }
    this.#writing = this.#writeLoop()
      // Failures are handled inside; only a throwing onError could get here, and it must not stop the log.
      .catch(() => undefined)
      .finally(() => {
        this.#writing = undefined;
      });
  }

  async #writeLoop(): Promise<void> {
    while (this.#pending.length > 0) {
      const lines = this.#pending;
      const waiters = this.#waiters;
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#waiters = [];
      this.#inFlight = lines.length;
      const { left, error } = await this.#writeLines(lines);
      this.#inFlight = 0;
      // Whatever became of the write, its callers go on: entries the disk refused wait here, not their replies.
      for (const waiter of waiters) {
        waiter();
      }
      if (error !== undefined) {
        // Put back in front of what came meanwhile, in order; the retry writes them.
        this.#pendingBytes += left.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
        this.#pending = [...left, ...this.#pending];
        this.#dropOverflow();
        this.#failed(error);
        return;
      }
      this.#unhealthy = false;
      this.#writeHealth.succeeded();
    }
  }

  /** Writes the lines; on a failure, returns the ones not written whole (the file may end inside one of them). */
  async #writeLines(lines: readonly string[]): Promise<{ left: readonly string[]; error?: unknown }> {
    let done = 0;
    try {
      await this.start();
      let current = this.#current ?? this.#next(undefined);
      this.#current = current;
      // One write per segment the batch reaches: a segment is closed at the entry that would take it over its size,
      // however many entries one batch holds.
      let part: string[] = [];
      let partBytes = 0;
      for (const line of lines) {
        const bytes = Buffer.byteLength(line);
        if (current.size + partBytes > 0 && current.size + partBytes + bytes > this.#segmentBytes) {
          done += await this.#appendTo(current, part);
          part = [];
          partBytes = 0;
          current = this.#next(current);
          this.#current = current;
          await this.#retain();
        }
        part.push(line);
        partBytes += bytes;
      }
      done += await this.#appendTo(current, part);
      return { left: [] };
    } catch (error) {
      const cut = error instanceof CutWrite ? error : undefined;
      return { left: lines.slice(done + (cut?.done ?? 0)), error: cut?.cause ?? error };
    }
  }

  /**
   * Appends whole lines to a segment, in one `write` when the OS takes them at once; returns how many. On a failure
   * it throws a CutWrite saying how many lines got to the OS whole; the file may now end inside the next one, so
   * the next write checks and starts a fresh line.
   */
  async #appendTo(segment: Segment, lines: readonly string[]): Promise<number> {
    if (lines.length === 0) {
      return 0;
    }
    const handle = await this.#fileOf(segment);
    const fresh = this.#tailUnknown ? await freshLine(handle, segment) : '';
    const buffer = Buffer.from(fresh + lines.join(''));
    let offset = 0;
    try {
      while (offset < buffer.length) {
        const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset);
        offset += bytesWritten;
      }
    } catch (error) {
      this.#tailUnknown = true;
      segment.size += offset;
      throw new CutWrite(lines, offset - fresh.length, error);
    }
    this.#tailUnknown = false;
    segment.size += buffer.length;
    segment.mtimeMs = this.#now();
    return lines.length;
  }

  /** The segment's file, opened for appending once; the previous segment's file is closed. */
  async #fileOf(segment: Segment): Promise<FileHandle> {
    if (this.#file?.number === segment.number) {
      return this.#file.handle;
    }
    await this.#closeFile();
    // Readable too, to check the last byte after a failed write.
    const handle = await fs.open(segment.path, 'a+', 0o600);
    this.#file = { number: segment.number, handle };
    return handle;
  }

  async #closeFile(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await file?.handle.close();
  }

  #failed(error: unknown): void {
    const first = this.#writeHealth.error === null;
    this.#unhealthy = true;
    // For the person who can fix it (free space, mend the mount): which folder, and the OS's own reason.
    this.#writeHealth.report(`cannot write to ${this.#options.dir}: ${error instanceof Error ? error.message : String(error)}`);
    if (first) {
      this.#options.onError(error);
    }
    if (!this.#closed) {
      this.#writeHealth.retryLater();
    }
  }

  /** Past the memory bound, the oldest waiting entries are given up on (and counted). */
  #dropOverflow(): void {
    let dropped = 0;
    while (this.#pendingBytes > MAX_PENDING_BYTES && this.#pending.length > 1) {
      const line = this.#pending.shift();
      this.#pendingBytes -= line === undefined ? 0 : Buffer.byteLength(line);
      dropped++;
    }
    this.#dropped += dropped;
  }

  /** Nobody waits any longer: the store is closing. */
  #release(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) {
      waiter();
    }
  }

  #next(after: Segment | undefined): Segment {
    return nextSegment(this.#options.dir, after, this.#now());
  }

  #retain(): Promise<Segment[]> {
    return retainSegments(this.#options.dir, this.#options, this.#now, () => this.#current?.number);
  }
}
