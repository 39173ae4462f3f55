import { TabmuxError } from '../../../shared/errors.js';

/** How often the browser is asked while calls wait on it, and how long each question is waited for. */
export const BROWSER_PULSE_MS = 5000;

export interface BrowserPulseOptions {
  /** Asks the browser itself something it answers whatever its pages do; false when it gave no answer within `withinMs`. */
  ask: (withinMs: number) => Promise<boolean>;
  intervalMs?: number | undefined;
  /** The browser stopped answering (since when, epoch ms), or answers again (null). */
  changed?: ((silentSince: number | null) => void) | undefined;
}

/**
 * Whether the browser itself answers, kept while calls wait on it. Every command of every session goes through the
 * browser's own process; when that process stops answering (a page keeping it busy without a break, a paused Chrome,
 * a machine out of CPU), each call waits on it, whatever session made it and whichever page it acts on, and a page
 * that gives no answer meanwhile is not the reason. While at least one call is held here, the browser is asked every
 * interval, each question waited for one interval; one left unanswered makes the browser silent from when it was
 * asked, until a later one is answered. A silent browser is asked on even with no call held, so that it is seen
 * answering again.
 */
export class BrowserPulse {
  readonly #options: BrowserPulseOptions;
  readonly #intervalMs: number;
  #holds = 0;
  #silentSince: number | null = null;
  #running = false;
  #closed = false;
  #wake: (() => void) | undefined;
  /** Waiting for a silent browser to answer again (see `whenAnswering`). */
  readonly #waiting: (() => void)[] = [];

  constructor(options: BrowserPulseOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? BROWSER_PULSE_MS;
  }

  /** Since when the browser has not answered (epoch ms); null while it answers, or nobody asked. */
  get silentSince(): number | null {
    return this.#silentSince;
  }

  /** Keeps the browser asked while something waits on it; the function returned lets go (once). */
  hold(): () => void {
    this.#holds += 1;
    if (!this.#running && !this.#closed) {
      this.#running = true;
      void this.#run().finally(() => {
        this.#running = false;
      });
    }
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.#holds -= 1;
      }
    };
  }

  /**
   * Resolves once the browser answers: at once (false) while it does, or when it answers again (true), or the pulse
   * closes (true).
   */
  whenAnswering(): Promise<boolean> {
    if (this.#silentSince === null || this.#closed) {
      return Promise.resolve(false);
    }
    return new Promise<boolean>((resolve) => {
      this.#waiting.push(() => resolve(true));
    });
  }

  /**
   * Runs `work`, something that waits on the browser, with the browser asked meanwhile; if it runs out of time while
   * the browser does not answer, its error says so (see `explainSilentBrowser`).
   */
  async watching<T>(work: () => Promise<T>): Promise<T> {
    const release = this.hold();
    try {
      return await work();
    } catch (error) {
      throw explainSilentBrowser(error, this.#silentSince);
    } finally {
      release();
    }
  }

  /** Stops asking; a question on its way is left to itself. */
  close(): void {
    this.#closed = true;
    this.#wake?.();
    this.#answered();
  }

  async #run(): Promise<void> {
    while (!this.#closed && (this.#holds > 0 || this.#silentSince !== null)) {
      const askedAt = Date.now();
      const answered = await this.#options.ask(this.#intervalMs).catch(() => true);
      if (this.#closed) {
        return;
      }
      if (!answered) {
        // The question took the whole interval: the next one goes at once.
        if (this.#silentSince === null) {
          this.#silentSince = askedAt;
          this.#options.changed?.(askedAt);
        }
        continue;
      }
      if (this.#silentSince !== null) {
        this.#silentSince = null;
        this.#options.changed?.(null);
        this.#answered();
      }
      await this.#pause();
    }
  }

  #answered(): void {
    for (const resolve of this.#waiting.splice(0)) {
      resolve();
    }
  }

  #pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.#intervalMs);
      // Never what keeps a process alive.
      timer.unref();
      const wake = (): void => done();
      this.#wake = wake;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}

/**
 * `error`, or, for a call that ran out of time while the browser itself gave no answer, the same error saying so: the
 * call's own page is not why it waited, and no call of the profile is served until the browser answers.
 */
export function explainSilentBrowser(error: unknown, silentSince: number | null, now: number = Date.now()): unknown {
  if (silentSince === null || !(error instanceof TabmuxError) || error.code !== 'timeout') {
    return error;
  }
  const seconds = Math.max(1, Math.round((now - silentSince) / 1000));
  return new TabmuxError(
    'timeout',
    `${error.message}. The browser itself has not answered tabmux for ${seconds} s, so no call of any session on this profile is served until it does; ` +
      'a page keeping Chrome busy without a break, a paused Chrome or an overloaded machine can do this. Retry once tabmux daemon status no longer says the browser is not answering',
    { cause: error },
  );
}
