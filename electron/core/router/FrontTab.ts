/**
 * Chrome renders only the front tab of a window, and `Page.captureScreenshot` waits for a rendered frame: a screenshot
 * of a background tab (every session's tab is one) can wait forever. Tools that need a frame bring the session's tab
 * to the front first, one at a time across all workers, so no other worker brings another tab forward in between.
 */
export class FrontTab {
  #last: Promise<unknown> = Promise.resolve();

  /** Runs `bring` then `work` after every earlier run has finished, failed or not. */
  run<T>(bring: () => Promise<unknown>, work: () => Promise<T>): Promise<T> {
    const next = this.#last.then(
      () => bring().then(work),
      () => bring().then(work),
    );
    this.#last = next.catch(() => undefined);
    return next;
  }
}

/** Tools whose answer is a rendered frame of the page. */
export const FRAME_TOOLS: ReadonlySet<string> = new Set(['take_screenshot']);
