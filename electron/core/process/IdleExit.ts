export interface IdleExitOptions {
  /** How long the daemon may be idle before it exits. */
  afterMs: number;
  /** Whether anything still uses the daemon: a session, or a client connected. Asked at every change and at the end. */
  inUse: () => boolean;
  /**
   * Whether something may be about to use the daemon (a connection that has not said what it is): asked when the idle
   * time runs out, it puts the exit off a moment without starting the clock again.
   */
  holdsOff?: () => boolean;
  /**
   * Called once, when the idle time ran out with nothing in use; it must stop new clients from being served in the
   * same turn (see Daemon), so none comes between the last look and the exit.
   */
  exit: () => void;
  now?: () => number;
}

/** How soon an exit put off by a connection that has not said what it is is looked at again. */
const HOLD_OFF_MS = 50;
/** How long past the idle time connections that have not said what they are may put the exit off, in all. */
const HOLD_OFF_LIMIT_MS = 10_000;

/** The longest delay a timer takes; a longer one fires at once. An idle time past it is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The idle clock of a daemon started on demand. Every change in its sessions or clients is reported with `changed`;
 * while something is in use the clock stands still, and it starts again from zero once nothing is. When it runs out,
 * `inUse` is asked once more (a change not reported yet) before `exit` is called.
 */
export class IdleExit {
  readonly #options: IdleExitOptions;
  #timer: NodeJS.Timeout | undefined;
  #idleSince: number | null = null;
  #done = false;

  constructor(options: IdleExitOptions) {
    this.#options = options;
  }

  /** Since when nothing has used the daemon (ms since the epoch); null while something does. */
  get idleSince(): number | null {
    return this.#idleSince;
  }

  changed(): void {
    if (this.#done) {
      return;
    }
    if (this.#options.inUse()) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#idleSince = null;
      return;
    }
    if (this.#timer === undefined) {
      this.#idleSince = this.#now();
      this.#wait(this.#options.afterMs);
    }
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #wait(ms: number): void {
    this.#timer = setTimeout(() => this.#runOut(), Math.min(ms, MAX_TIMER_MS));
    // The daemon's other work keeps the process alive; the clock alone must not.
    this.#timer.unref();
  }

  #runOut(): void {
    this.#timer = undefined;
    if (this.#done) {
      return;
    }
    const left = (this.#idleSince ?? 0) + this.#options.afterMs - this.#now();
    if (left > 0 && this.#idleSince !== null) {
      this.#wait(left);
      return;
    }
    if (this.#options.inUse()) {
      this.#idleSince = null;
      return;
    }
    // A connection that never says what it is holds the exit off for a while, not for ever.
    if (this.#options.holdsOff?.() === true && this.#now() - (this.#idleSince ?? 0) - this.#options.afterMs < HOLD_OFF_LIMIT_MS) {
      this.#wait(HOLD_OFF_MS);
      return;
    }
    this.#done = true;
    this.#options.exit();
  }

  /** Stops the clock for good (the daemon stops for another reason). */
  close(): void {
    this.#done = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
