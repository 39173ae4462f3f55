import { describe, expect, it } from 'vitest';
import { useFakeClock } from '../platform/testing/fakeClock.js';
import { TabmuxError } from '../../../shared/errors.js';
import { BrowserPulse, explainSilentBrowser } from './BrowserPulse.js';

const INTERVAL_MS = 100;

/** A browser that answers each question at once, or, paused, none until it goes on; the questions it got. */
class FakeBrowser {
  paused = false;
  asks = 0;
  readonly #waiting: (() => void)[] = [];

  ask = async (withinMs: number): Promise<boolean> => {
    this.asks += 1;
    if (!this.paused) {
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), withinMs);
      this.#waiting.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  };

  goOn(): void {
    this.paused = false;
    for (const answer of this.#waiting.splice(0)) {
      answer();
    }
  }
}

const sleep = useFakeClock();

describe('BrowserPulse', () => {
  it('asks nothing while nothing waits on the browser, and once an interval while something does', async () => {
    const browser = new FakeBrowser();
    const pulse = new BrowserPulse({ ask: browser.ask, intervalMs: INTERVAL_MS });
    await sleep(INTERVAL_MS * 5);
    expect(browser.asks).toBe(0);
    const release = pulse.hold();
    const other = pulse.hold();
    await sleep(INTERVAL_MS * 3 + 1);
    expect(browser.asks).toBe(4);
    release();
    release();
    await sleep(INTERVAL_MS * 2);
    expect(browser.asks).toBe(6);
    other();
    await sleep(INTERVAL_MS * 5);
    expect(browser.asks).toBe(6);
    expect(pulse.silentSince).toBeNull();
  });

  it('tells a browser silent from the question it left unanswered, and answering again at the next answer, held or not', async () => {
    const browser = new FakeBrowser();
    const changes: (number | null)[] = [];
    const pulse = new BrowserPulse({ ask: browser.ask, intervalMs: INTERVAL_MS, changed: (since) => changes.push(since) });
    const release = pulse.hold();
    await sleep(INTERVAL_MS / 2);
    browser.paused = true;
    const pausedAt = Date.now();
    await sleep(INTERVAL_MS * 2);
    expect(pulse.silentSince).not.toBeNull();
    expect(pulse.silentSince).toBeGreaterThanOrEqual(pausedAt);
    const since = pulse.silentSince;
    await sleep(INTERVAL_MS * 3);
    // Still silent, still from the first question it left unanswered.
    expect(pulse.silentSince).toBe(since);
    // Nothing waits on it any more, but a silent browser is asked on until it answers.
    release();
    await sleep(INTERVAL_MS * 3);
    browser.goOn();
    await sleep(1);
    expect(pulse.silentSince).toBeNull();
    expect(changes).toEqual([since, null]);
    const asked = browser.asks;
    await sleep(INTERVAL_MS * 5);
    expect(browser.asks).toBe(asked);
  });

  it('tells who waits for the browser when it answers again: at once while it answers, else when it does or the pulse closes', async () => {
    const browser = new FakeBrowser();
    const pulse = new BrowserPulse({ ask: browser.ask, intervalMs: INTERVAL_MS });
    expect(await pulse.whenAnswering()).toBe(false);
    browser.paused = true;
    const release = pulse.hold();
    await sleep(INTERVAL_MS * 2);
    let waited: boolean | undefined;
    void pulse.whenAnswering().then((value) => (waited = value));
    await sleep(INTERVAL_MS * 3);
    expect(waited).toBeUndefined();
    browser.goOn();
    await sleep(1);
    expect(waited).toBe(true);
    browser.paused = true;
    await sleep(INTERVAL_MS * 2);
    let closed: boolean | undefined;
    void pulse.whenAnswering().then((value) => (closed = value));
    pulse.close();
    await sleep(1);
    expect(closed).toBe(true);
    release();
  });

  it('counts a refused question as an answer, and stops asking once closed', async () => {
    const pulse = new BrowserPulse({ ask: () => Promise.reject(new Error('refused')), intervalMs: INTERVAL_MS });
    pulse.hold();
    await sleep(INTERVAL_MS * 3);
    expect(pulse.silentSince).toBeNull();
    const browser = new FakeBrowser();
    browser.paused = true;
    const closing = new BrowserPulse({ ask: browser.ask, intervalMs: INTERVAL_MS });
    closing.hold();
    await sleep(INTERVAL_MS * 2);
    closing.close();
    const asked = browser.asks;
    await sleep(INTERVAL_MS * 5);
    expect(browser.asks).toBe(asked);
  });
});

describe('explainSilentBrowser', () => {
  const timeout = new TabmuxError('timeout', 'take_snapshot did not finish within 20000 ms and was stopped');

  it('tells a call that ran out of time that the browser itself did not answer, keeping its code', () => {
    const explained = explainSilentBrowser(timeout, 1_000, 26_000);
    expect(explained).toBeInstanceOf(TabmuxError);
    expect((explained as TabmuxError).code).toBe('timeout');
    expect((explained as TabmuxError).message).toContain('take_snapshot did not finish within 20000 ms');
    expect((explained as TabmuxError).message).toContain('The browser itself has not answered tabmux for 25 s');
  });

  it('leaves every other error, and any error while the browser answers, as it is', () => {
    const other = new TabmuxError('stale_token', 'stale');
    expect(explainSilentBrowser(other, 1_000, 26_000)).toBe(other);
    expect(explainSilentBrowser(timeout, null, 26_000)).toBe(timeout);
    const plain = new Error('x');
    expect(explainSilentBrowser(plain, 1_000, 26_000)).toBe(plain);
  });
});
