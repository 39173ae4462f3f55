import type { JsonRpcId } from './jsonrpc.js';

/**
 * The `id` of a JSON-RPC message read from the head of a line that was too long (or not valid UTF-8) to be parsed
 * whole. Only top-level members before the cut are read, and a member is skipped by its JSON structure, so an `"id"`
 * written inside params or a result (page text, say) is never taken for the message's own. Undefined when the head
 * ends before an id, or is not the start of a JSON object.
 */
export function leadingId(head: string): JsonRpcId | undefined {
  const reader = new HeadReader(head);
  if (!reader.take('{')) {
    return undefined;
  }
  for (;;) {
    const key = reader.string();
    if (key === undefined || !reader.take(':')) {
      return undefined;
    }
    if (key === 'id') {
      return reader.id();
    }
    if (!reader.skipValue() || !reader.take(',')) {
      return undefined;
    }
  }
}

class HeadReader {
  #at = 0;

  constructor(private readonly text: string) {}

  take(char: string): boolean {
    this.#space();
    if (this.text[this.#at] !== char) {
      return false;
    }
    this.#at += 1;
    return true;
  }

  /** A complete JSON string at the cursor, decoded; undefined if there is none or it is cut off. */
  string(): string | undefined {
    this.#space();
    const start = this.#at;
    if (!this.#skipString()) {
      return undefined;
    }
    try {
      const value: unknown = JSON.parse(this.text.slice(start, this.#at));
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  id(): JsonRpcId | undefined {
    this.#space();
    if (this.text[this.#at] === '"') {
      return this.string();
    }
    const match = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.#at, this.#at + 32));
    const end = match ? this.#at + match[0].length : this.#at;
    // A number cut by the end of the head might have had more digits.
    if (!match || end >= this.text.length) {
      return undefined;
    }
    const value = Number(match[0]);
    return Number.isFinite(value) ? value : undefined;
  }

  /** Skips one complete JSON value; false if it runs past the end of the head. */
  skipValue(): boolean {
    this.#space();
    const first = this.text[this.#at];
    if (first === '"') {
      return this.#skipString();
    }
    if (first === '{' || first === '[') {
      let depth = 0;
      while (this.#at < this.text.length) {
        const char = this.text[this.#at];
        if (char === '"') {
          if (!this.#skipString()) {
            return false;
          }
          continue;
        }
        if (char === '{' || char === '[') {
          depth += 1;
        } else if (char === '}' || char === ']') {
          depth -= 1;
        }
        this.#at += 1;
        if (depth === 0) {
          return true;
        }
      }
      return false;
    }
    const match = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.text.slice(this.#at, this.#at + 64));
    if (!match) {
      return false;
    }
    this.#at += match[0].length;
    return this.#at < this.text.length;
  }

  #skipString(): boolean {
    if (this.text[this.#at] !== '"') {
      return false;
    }
    let at = this.#at + 1;
    while (at < this.text.length) {
      const char = this.text[at];
      if (char === '\\') {
        at += 2;
        continue;
      }
      if (char === '"') {
        this.#at = at + 1;
        return true;
      }
      at += 1;
    }
    return false;
  }

  #space(): void {
    while (this.#at < this.text.length && ' \t\r\n'.includes(this.text.charAt(this.#at))) {
      this.#at += 1;
    }
  }
}
