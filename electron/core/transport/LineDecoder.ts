import { TabmuxError } from '../../../shared/errors.js';

/**
 * A line, or why one was dropped with the first bytes of it (`head`), which are enough to find the id of a message
 * written by tabmux, and its last bytes (`tail`), where a server that writes the id last puts it. `tail` is empty
 * unless the decoder was asked to keep one.
 */
export type DecodedLine = { line: string } | DroppedLine;

/** A line as bytes, not yet decoded, or why one was dropped. */
export type RawLine = { bytes: Buffer } | DroppedLine;

export interface DroppedLine {
  error: TabmuxError;
  head: string;
  tail: string;
}

export interface LineDecoderOptions {
  /**
   * Keep this many last bytes of a dropped line. A line over the limit is then reported when it ends (its tail is
   * known only then) instead of as soon as it crosses the limit.
   */
  tailBytes?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** How much of a dropped line is kept: the id of a JSON-RPC message written by tabmux comes within its first bytes. */
const HEAD_BYTES = 512;

/**
 * Splits a byte stream into newline-delimited lines. A line longer than the limit is skipped up to its newline and
 * reported once, and a line that is not valid UTF-8 is reported, so a bad line costs only itself, never the
 * connection. Parts of a line are kept in a list and joined once, so a long line costs linear time.
 */
export class LineDecoder {
  #chunks: Buffer[] = [];
  #length = 0;
  #discarding = false;
  /** Head and tail of the line being discarded, while its report waits for the line's end. */
  #dropped: { error: TabmuxError; head: string; tail: Buffer } | undefined;
  readonly #tailBytes: number;
  readonly #utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(
    private readonly maxBytes: number,
    options: LineDecoderOptions = {},
  ) {
    this.#tailBytes = Math.max(0, options.tailBytes ?? 0);
  }

  push(chunk: Buffer): DecodedLine[] {
    return this.pushBytes(chunk).map((raw) => ('bytes' in raw ? this.decode(raw.bytes) : raw));
  }

  /** The lines completed by this chunk as bytes, for a reader that passes some on without decoding them. */
  pushBytes(chunk: Buffer): RawLine[] {
    const out: RawLine[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#append(chunk.subarray(start), out);
        return out;
      }
      this.#append(chunk.subarray(start, newline), out);
      if (this.#discarding) {
        this.#discarding = false;
        this.#reportDropped(out);
      } else {
        const line = this.#take();
        if (line !== undefined) {
          out.push(line);
        }
      }
      start = newline + 1;
    }
  }

  /** One line's bytes as text; a line that is not valid UTF-8 is reported as dropped. */
  decode(bytes: Buffer): DecodedLine {
    try {
      return { line: this.#utf8.decode(bytes) };
    } catch {
      const tail = this.#tailBytes > 0 ? lenientText(bytes.subarray(Math.max(0, bytes.length - this.#tailBytes))) : '';
      return { error: new TabmuxError('parse_error', 'message is not valid UTF-8'), head: headText([bytes]), tail };
    }
  }

  #append(part: Buffer, out: RawLine[]): void {
    if (part.length === 0) {
      return;
    }
    if (this.#discarding) {
      if (this.#dropped) {
        this.#dropped.tail = this.#keepTail([this.#dropped.tail, part]);
      }
      return;
    }
    if (this.#length + part.length > this.maxBytes) {
      const parts = [...this.#chunks, part];
      const error = new TabmuxError('line_too_long', `message longer than ${this.maxBytes} bytes was dropped; send smaller messages`);
      const head = headText(parts);
      if (this.#tailBytes > 0) {
        this.#dropped = { error, head, tail: this.#keepTail(parts) };
      } else {
        out.push({ error, head, tail: '' });
      }
      this.#chunks = [];
      this.#length = 0;
      this.#discarding = true;
      return;
    }
    this.#chunks.push(Buffer.from(part));
    this.#length += part.length;
  }

  #reportDropped(out: RawLine[]): void {
    const dropped = this.#dropped;
    this.#dropped = undefined;
    if (dropped) {
      const tail = withoutCarriageReturn(dropped.tail);
      out.push({ error: dropped.error, head: dropped.head, tail: lenientText(tail.subarray(Math.max(0, tail.length - this.#tailBytes))) });
    }
  }

  /** The last bytes of the parts (one more than the tail, for a carriage return), copying no more from each. */
  #keepTail(parts: readonly Buffer[]): Buffer {
    const want = this.#tailBytes + 1;
    const kept: Buffer[] = [];
    let length = 0;
    for (let i = parts.length - 1; i >= 0 && length < want; i -= 1) {
      const part = parts[i];
      if (part === undefined) {
        continue;
      }
      const piece = part.subarray(Math.max(0, part.length - (want - length)));
      kept.unshift(piece);
      length += piece.length;
    }
    return Buffer.concat(kept);
  }

  #take(): RawLine | undefined {
    const bytes = this.#chunks.length === 1 && this.#chunks[0] ? this.#chunks[0] : Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#length = 0;
    const trimmed = withoutCarriageReturn(bytes);
    return trimmed.length === 0 ? undefined : { bytes: trimmed };
  }
}

function withoutCarriageReturn(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.subarray(0, -1) : bytes;
}

function headText(chunks: readonly Buffer[]): string {
  return lenientText(Buffer.concat(chunks.map((chunk) => chunk.subarray(0, HEAD_BYTES))).subarray(0, HEAD_BYTES));
}

/** Lenient: a head or tail can be cut inside a character, and only its ASCII structure matters. */
function lenientText(bytes: Buffer): string {
  return new TextDecoder('utf-8').decode(bytes);
}
