import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ActivityQueryResult } from '../../../shared/activity.js';
import { listSegments, segmentPath, type Segment } from './activitySegments.js';
import { readActivityLog, type ActivityFilter } from './readActivityLog.js';

export interface RetentionSettings {
  /** The log's total size; the oldest segments go first when it is over. */
  maxBytes: number;
  /** Segments whose newest entry is older than this are removed. */
  maxAgeMs: number;
}

export const DEFAULT_RETENTION: RetentionSettings = { maxBytes: 50 * 1024 * 1024, maxAgeMs: 30 * 24 * 60 * 60_000 };

export interface ActivityLogStoreOptions extends RetentionSettings {
  dir: string;
  /** Told about a write or clean-up that failed; the log keeps going. */
  onError: (error: unknown) => void;
  now?: () => number;
}

const MAX_SEGMENT_BYTES = 8 * 1024 * 1024;
const RETENTION_PERIOD_MS = 60 * 60_000;
/**
 * How long appended entries wait to be written: long enough that a burst of fast calls (a few milliseconds each)
 * costs one write, short enough that entries are on disk long before anyone could look.
 */
const WRITE_DELAY_MS = 10;

/**
 * One profile's activity log on disk: JSON lines appended to numbered segment files (0600, in a 0700 folder).
 * `append` only queues a line; the queue is written in one `write` per batch, at most 10 ms after its first line (a
 * burst of fast calls is one write), to the segment file kept open (no open and close per batch), so an agent's call never waits for the disk,
 * and a crash can cut at most the last line short (readers skip it). A segment is closed once it reaches a tenth of `maxBytes` (at most 8 MiB), and whole segments are removed by
 * size and age when the log opens, when a segment is closed, and every hour.
 */
export class ActivityLogStore {
  readonly #options: ActivityLogStoreOptions;
  readonly #segmentBytes: number;
  readonly #now: () => number;
  #pending: string[] = [];
  #current: Segment | undefined;
  /** The open file of the segment being written. */
  #file: { number: number; handle: FileHandle } | undefined;
  #writing: Promise<void> = Promise.resolve();
  #scheduled = false;
  #ready: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ActivityLogStoreOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#segmentBytes = Math.max(1024, Math.min(MAX_SEGMENT_BYTES, Math.floor(options.maxBytes / 10)));
  }

  get dir(): string {
    return this.#options.dir;
  }

  /** Creates the folder and applies retention; appends made before it are written once it is done. */
  start(): Promise<void> {
    this.#ready ??= this.#start();
    return this.#ready;
  }

  append(line: string): void {
    this.#pending.push(`${line}\n`);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setTimeout(() => {
        this.#scheduled = false;
        void this.flush();
      }, WRITE_DELAY_MS);
    }
  }

  /** Resolves once everything appended so far is written. */
  flush(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#writePending());
    return this.#writing;
  }

  async query(filter: ActivityFilter): Promise<ActivityQueryResult> {
    await this.flush();
    return readActivityLog(this.#options.dir, filter);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    await this.#closeFile();
  }

  async #start(): Promise<void> {
    await fs.mkdir(this.#options.dir, { recursive: true, mode: 0o700 });
    await fs.chmod(this.#options.dir, 0o700);
    const segments = await this.#retain();
    const last = segments.at(-1);
    // A segment a crash cut mid-line is left as it is: the next entry starts a segment of its own.
    this.#current = last && last.size < this.#segmentBytes && (await endsWithNewline(last.path, last.size)) ? last : this.#next(last);
    this.#timer = setInterval(() => void this.#retain().catch(this.#options.onError), RETENTION_PERIOD_MS);
    this.#timer.unref();
  }

  async #writePending(): Promise<void> {
    if (this.#pending.length === 0) {
      return;
    }
    try {
      await this.start();
      const lines = this.#pending;
      this.#pending = [];
      let current = this.#current ?? this.#next(undefined);
      // One write per segment the batch reaches: a segment is closed at the entry that would take it over its size,
      // however many entries one batch holds.
      let part: string[] = [];
      let partBytes = 0;
      for (const line of lines) {
        const bytes = Buffer.byteLength(line);
        if (current.size + partBytes > 0 && current.size + partBytes + bytes > this.#segmentBytes) {
          await this.#appendTo(current, part, partBytes);
          part = [];
          partBytes = 0;
          current = this.#next(current);
          this.#current = current;
          await this.#retain();
        }
        part.push(line);
        partBytes += bytes;
      }
      await this.#appendTo(current, part, partBytes);
      this.#current = current;
    } catch (error) {
      this.#options.onError(error);
    }
  }

  async #appendTo(segment: Segment, lines: readonly string[], bytes: number): Promise<void> {
    if (lines.length === 0) {
      return;
    }
    await (await this.#fileOf(segment)).appendFile(lines.join(''));
    segment.size += bytes;
    segment.mtimeMs = this.#now();
  }

  /** The segment's file, opened for appending once; the previous segment's file is closed. */
  async #fileOf(segment: Segment): Promise<FileHandle> {
    if (this.#file?.number === segment.number) {
      return this.#file.handle;
    }
    await this.#closeFile();
    const handle = await fs.open(segment.path, 'a', 0o600);
    this.#file = { number: segment.number, handle };
    return handle;
  }

  async #closeFile(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await file?.handle.close();
  }

  #next(after: Segment | undefined): Segment {
    const number = (after?.number ?? 0) + 1;
    return { number, path: segmentPath(this.#options.dir, number), size: 0, mtimeMs: this.#now() };
  }

  /** Removes segments older than maxAgeMs, then the oldest ones until the rest fit in maxBytes; returns the rest. */
  async #retain(): Promise<Segment[]> {
    const segments = await listSegments(this.#options.dir);
    const cutoff = this.#now() - this.#options.maxAgeMs;
    let total = segments.reduce((sum, segment) => sum + segment.size, 0);
    const kept: Segment[] = [];
    for (const [index, segment] of segments.entries()) {
      const isCurrent = segment.number === this.#current?.number;
      const newer = segments.slice(index + 1).reduce((sum, later) => sum + later.size, 0);
      if (!isCurrent && (segment.mtimeMs < cutoff || (total > this.#options.maxBytes && newer > 0))) {
        await fs.rm(segment.path, { force: true });
        total -= segment.size;
        continue;
      }
      kept.push(segment);
    }
    return kept;
  }
}

async function endsWithNewline(path: string, size: number): Promise<boolean> {
  if (size === 0) {
    return true;
  }
  const handle = await fs.open(path, 'r');
  try {
    const { buffer } = await handle.read({ buffer: Buffer.alloc(1), position: size - 1 });
    return buffer[0] === 0x0a;
  } finally {
    await handle.close();
  }
}
