import { TabmuxError } from '../../../shared/errors.js';

export type DecodedLine = { line: string } | { error: TabmuxError };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into newline-delimited lines. A line longer than the limit is skipped up to its newline and
 * reported once, and a line that is not valid UTF-8 is reported, so a bad line costs only itself, never the connection.
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
      this.#chunks = [];
      this.#length = 0;
      this.#discarding = true;
      out.push({ error: new TabmuxError('line_too_long', `message longer than ${this.maxBytes} bytes was dropped; send smaller messages`) });
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
      return { error: new TabmuxError('parse_error', 'message is not valid UTF-8') };
    }
  }
}
