import { TabmuxError } from '../../../shared/errors.js';

/** A line, or why one was dropped with the first bytes of it (`head`), which are enough to find its JSON-RPC id. */
export type DecodedLine = { line: string } | { error: TabmuxError; head: string };

const NEWLINE = 0x0a;

/** How much of a dropped line is kept: the id of a JSON-RPC message written by tabmux comes within its first bytes. */
const HEAD_BYTES = 512;

/**
 * Splits a byte stream into newline-delimited lines. A line longer than the limit is skipped up to its newline and
 * reported once, as soon as it crosses the limit, and a line that is not valid UTF-8 is reported, so a bad line
 * costs only itself, never the connection.
 */
export class LineDecoder {
  #chunks: Buffer[] = [];
  #length = 0;
  #discarding = false;
  readonly #utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): DecodedLine[] {
    const out: DecodedLine[] = [];
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
      } else {
        const line = this.#take();
        if (line !== undefined) {
          out.push(line);
        }
      }
      start = newline + 1;
    }
  }

  #append(part: Buffer, out: DecodedLine[]): void {
    if (this.#discarding || part.length === 0) {
      return;
    }
    if (this.#length + part.length > this.maxBytes) {
      const head = headText([...this.#chunks, part]);
      this.#chunks = [];
      this.#length = 0;
      this.#discarding = true;
      out.push({ error: new TabmuxError('line_too_long', `message longer than ${this.maxBytes} bytes was dropped; send smaller messages`), head });
      return;
    }
    this.#chunks.push(Buffer.from(part));
    this.#length += part.length;
  }

  #take(): DecodedLine | undefined {
    const bytes = this.#chunks.length === 1 && this.#chunks[0] ? this.#chunks[0] : Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#length = 0;
    const trimmed = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
    if (trimmed.length === 0) {
      return undefined;
    }
    try {
      return { line: this.#utf8.decode(trimmed) };
    } catch {
      return { error: new TabmuxError('parse_error', 'message is not valid UTF-8'), head: headText([trimmed]) };
    }
  }
}

function headText(chunks: readonly Buffer[]): string {
  const head = Buffer.concat(chunks.map((chunk) => chunk.subarray(0, HEAD_BYTES))).subarray(0, HEAD_BYTES);
  // Lenient: a head can end inside a character, and only its ASCII structure matters.
  return new TextDecoder('utf-8').decode(head);
}
