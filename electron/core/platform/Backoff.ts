export interface BackoffOptions {
  /** Delay after the first failure that is not free. */
  initialMs: number;
  /** The longest delay; repeated failures settle there and never come faster. */
  maxMs: number;
  /** Failures in a row that are retried at once, before any delay (a single blip costs nothing). */
  freeFailures?: number;
  /** A failure this long after the previous one starts a new streak; without it only `reset()` does. */
  resetAfterMs?: number;
}

/**
 * The one retry policy of tabmux: exponential backoff over a streak of failures (initial, ×2, ×4 … capped), so
 * something that keeps failing is retried at a slow steady pace instead of in a busy loop. The Chrome relaunch,
 * upstream worker restarts, the supervisor's daemon restarts and the MCP bridge's reconnects all use it.
 */
export class Backoff {
  readonly #options: Required<Omit<BackoffOptions, 'resetAfterMs'>> & { resetAfterMs: number | undefined };
  #failures = 0;
  #lastFailureAt: number | undefined;

  constructor(options: BackoffOptions) {
    this.#options = { freeFailures: 0, ...options, resetAfterMs: options.resetAfterMs };
  }

  /** Failures in the current streak. */
  get failures(): number {
    return this.#failures;
  }

  /** Records a failure at `now` and returns how long to wait before the next attempt. */
  fail(now = Date.now()): number {
    const { resetAfterMs } = this.#options;
    if (resetAfterMs !== undefined && this.#lastFailureAt !== undefined && now - this.#lastFailureAt > resetAfterMs) {
      this.#failures = 0;
    }
    this.#failures += 1;
    this.#lastFailureAt = now;
    return this.delayMs();
  }

  /** The wait after the failures so far (0 while they are free). */
  delayMs(): number {
    const { initialMs, maxMs, freeFailures } = this.#options;
    const counted = this.#failures - freeFailures;
    return counted <= 0 ? 0 : Math.min(maxMs, initialMs * 2 ** (counted - 1));
  }

  /** How long from `now` until the next attempt may run; 0 when it may run now. */
  remainingMs(now = Date.now()): number {
    return this.#lastFailureAt === undefined ? 0 : Math.max(0, this.#lastFailureAt + this.delayMs() - now);
  }

  /** Success (or a human's fresh start): earlier failures no longer count. */
  reset(): void {
    this.#failures = 0;
    this.#lastFailureAt = undefined;
  }
}
