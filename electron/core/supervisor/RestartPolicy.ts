import { Backoff } from '../platform/Backoff.js';

export interface RestartPolicyOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A daemon that dies within this long of becoming ready counts as a quick failure. */
  quickFailureMs?: number;
  /** After this many quick failures in a row the supervisor stops trying. */
  maxQuickFailures?: number;
}

export type RestartDecision = { restart: true; delayMs: number } | { restart: false; quickFailures: number };

/**
 * When to restart a daemon that died: exponential backoff (1 s, 2 s, 4 s … capped at 30 s) that resets once a
 * daemon has stayed up, and a give-up after several quick failures in a row, because a daemon that dies at once
 * every time (a broken Chrome, a locked profile) only fills the log and burns CPU until a human fixes the cause.
 */
export class RestartPolicy {
  readonly #backoff: Backoff;
  readonly #quickFailureMs: number;
  readonly #maxQuickFailures: number;
  #quickFailures = 0;

  constructor(options: RestartPolicyOptions = {}) {
    this.#backoff = new Backoff({ initialMs: options.baseDelayMs ?? 1000, maxMs: options.maxDelayMs ?? 30_000 });
    this.#quickFailureMs = options.quickFailureMs ?? 30_000;
    this.#maxQuickFailures = options.maxQuickFailures ?? 5;
  }

  /** Records a failure: a crash after `upForMs` of being ready, or a failed start (`upForMs` null). */
  recordFailure(upForMs: number | null): RestartDecision {
    const quick = upForMs === null || upForMs < this.#quickFailureMs;
    if (!quick) {
      // It ran for a while: this is a new incident, not part of a crash loop.
      this.#backoff.reset();
      this.#quickFailures = 0;
    }
    const delayMs = this.#backoff.fail();
    if (quick) {
      this.#quickFailures += 1;
    }
    if (this.#quickFailures >= this.#maxQuickFailures) {
      return { restart: false, quickFailures: this.#quickFailures };
    }
    return { restart: true, delayMs };
  }

  /** A human asked for a start or a stop: whatever happened before no longer counts. */
  reset(): void {
    this.#backoff.reset();
    this.#quickFailures = 0;
  }
}
