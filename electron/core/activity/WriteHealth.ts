/** Failed writes are tried again after this, doubling up to the maximum. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2_000;

/**
 * What the activity log knows of a disk that refuses its writes (full) or stalls them (a hung mount): the reason,
 * for the person who can fix it, and since when, heard of when it first goes wrong, when the reason changes and when
 * writes succeed again; and when to try again, after a delay that doubles up to a maximum, so a full disk is not
 * tried once per call.
 */
export class WriteHealth {
  readonly #now: () => number;
  /** Told when the reason appears, changes or goes away. */
  readonly #changed: () => void;
  readonly #retry: () => void;
  /** Why writes fail now (or stall), and since when; null while they succeed. */
  #error: { message: string; since: number } | null = null;
  #retryMs = RETRY_FIRST_MS;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(now: () => number, changed: () => void, retry: () => void) {
    this.#now = now;
    this.#changed = changed;
    this.#retry = retry;
  }

  get error(): { readonly message: string; readonly since: number } | null {
    return this.#error;
  }

  /** Records what is wrong; subscribers hear of it when it first goes wrong or the reason changes. */
  report(message: string): void {
    const changed = this.#error?.message !== message;
    this.#error = { message, since: this.#error?.since ?? this.#now() };
    if (changed) {
      this.#changed();
    }
  }

  /** Tries the writes again later, unless a retry is due already. */
  retryLater(): void {
    if (this.#retryTimer !== undefined) {
      return;
    }
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#retry();
    }, this.#retryMs);
    this.#retryTimer.unref();
    this.#retryMs = Math.min(RETRY_MAX_MS, this.#retryMs * 2);
  }

  /** A write succeeded: no retry is due, the next failure is tried again soon, and the reason is gone. */
  succeeded(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#retryMs = RETRY_FIRST_MS;
    if (this.#error !== null) {
      this.#error = null;
      this.#changed();
    }
  }

  /** The log is closing: the retry due, if any, never runs. */
  stop(): void {
    clearTimeout(this.#retryTimer);
  }
}
