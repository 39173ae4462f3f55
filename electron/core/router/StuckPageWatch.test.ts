import { describe, expect, it } from 'vitest';
import { useFakeClock } from '../platform/testing/fakeClock.js';
import type { BrowserTab } from '../browser/BrowserTab.js';
import { StuckPageWatch, stuckPageNote } from './StuckPageWatch.js';
import type { TabView } from './TabView.js';

const STUCK_MS = 60;

/**
 * One tab whose page is busy (answers nothing) until its script is ended, or shows a dialog; the asks and ends it got.
 * A page that is not busy answers each ask at once.
 */
class FakePage implements TabView {
  busy = false;
  tab: BrowserTab = { tabId: 't1', pageTargetId: 'p1', openerTabId: null, url: 'https://site/', title: '', dialog: null, answers: true, watchedSince: 0 };
  asks = 0;
  ends = 0;
  /** Called as each ask begins, with its number. */
  onAsk: (ask: number) => void = () => undefined;

  /** Other tabs of the browser (a popup of the page, say). */
  others: BrowserTab[] = [];

  list(): BrowserTab[] {
    return [this.tab, ...this.others];
  }

  get(tabId: string): BrowserTab | undefined {
    return tabId === this.tab.tabId ? this.tab : undefined;
  }

  async silent(_tabId: string, forMs: number): Promise<boolean> {
    this.asks += 1;
    this.onAsk(this.asks);
    if (!this.busy && this.tab.dialog === null) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, forMs));
    return this.busy || this.tab.dialog !== null;
  }

  /** Whether the browser's own process answers (a paused or flooded browser answers for none of its pages). */
  browserAnswering = true;

  async browserAnswers(withinMs: number): Promise<boolean> {
    if (this.browserAnswering) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, withinMs));
    return false;
  }

  /** Whether the browser answers a request to end the script (a renderer too busy to may not). */
  answersEnd = true;

  stopScripts(): Promise<boolean> {
    this.ends += 1;
    if (!this.answersEnd) {
      return new Promise(() => undefined);
    }
    this.busy = false;
    return Promise.resolve(true);
  }
}

const sleep = useFakeClock();

describe('StuckPageWatch', () => {
  it('ends the script of a page that answers nothing for two thirds of the limit, once the call has waited it', async () => {
    const page = new FakePage();
    page.busy = true;
    const watch = StuckPageWatch.start(page, 't1', 'take_snapshot', STUCK_MS);
    await sleep(STUCK_MS / 2);
    expect(page.ends).toBe(0);
    await sleep(STUCK_MS * 2);
    await watch?.stop();
    expect(page.ends).toBe(1);
    expect(watch?.ended).toHaveLength(1);
    expect(watch?.ended[0]?.silentMs).toBe((2 * STUCK_MS) / 3);
  });

  it('leaves a page that answers alone however long the call runs', async () => {
    const page = new FakePage();
    const watch = StuckPageWatch.start(page, 't1', 'wait_for', STUCK_MS);
    await sleep(STUCK_MS * 3);
    await watch?.stop();
    expect(page.asks).toBeGreaterThan(0);
    expect(page.ends).toBe(0);
    expect(watch?.ended).toEqual([]);
  });

  it('leaves a crashed page alone: it answers nothing, but has no script to end', async () => {
    const page = new FakePage();
    page.busy = true;
    page.tab = { ...page.tab, crashed: { status: 'crashed', errorCode: 5, at: 0 } };
    const watch = StuckPageWatch.start(page, 't1', 'take_snapshot', STUCK_MS);
    await sleep(STUCK_MS * 3);
    await watch?.stop();
    expect(page.asks).toBeGreaterThan(0);
    expect(page.ends).toBe(0);
  });

  it('leaves a page alone while it shows a dialog', async () => {
    const page = new FakePage();
    page.tab = { ...page.tab, dialog: { type: 'alert' } };
    const watch = StuckPageWatch.start(page, 't1', 'click', STUCK_MS);
    await sleep(STUCK_MS * 3);
    await watch?.stop();
    expect(page.asks).toBe(0);
    expect(page.ends).toBe(0);
  });

  it('does not end a script when a dialog opened while the page was asked: the dialog is why it was silent', async () => {
    const page = new FakePage();
    page.busy = true;
    page.onAsk = (ask) => {
      if (ask === 2) {
        page.tab = { ...page.tab, dialog: { type: 'confirm' } };
      }
    };
    const watch = StuckPageWatch.start(page, 't1', 'click', STUCK_MS);
    await sleep(STUCK_MS * 3);
    await watch?.stop();
    expect(page.asks).toBe(2);
    expect(page.ends).toBe(0);
  });

  it('leaves a page alone while a page its own opened shows a dialog: they may share the renderer the dialog holds', async () => {
    const page = new FakePage();
    page.busy = true;
    page.others = [{ ...page.tab, tabId: 'popup', pageTargetId: 'p2', openerTabId: 't1', dialog: { type: 'prompt' } }];
    const watch = StuckPageWatch.start(page, 't1', 'click', STUCK_MS);
    await sleep(STUCK_MS * 3);
    await watch?.stop();
    expect(page.ends).toBe(0);
    // Once the popup's dialog is answered, the page is its own again, and a script that keeps it busy is ended.
    page.others = [{ ...page.others[0]!, dialog: null }];
    const again = StuckPageWatch.start(page, 't1', 'click', STUCK_MS);
    await sleep(STUCK_MS * 2);
    await again?.stop();
    expect(page.ends).toBe(1);
  });

  it('lets the call end at its own time when the browser never answers the request to end the script, and claims nothing', async () => {
    const page = new FakePage();
    page.busy = true;
    page.answersEnd = false;
    const watch = StuckPageWatch.start(page, 't1', 'take_snapshot', STUCK_MS);
    await sleep(STUCK_MS * 4);
    expect(page.ends).toBeGreaterThan(0);
    // The call ends while the browser's answer is still awaited: the watch stops at once all the same.
    let stopped = false;
    void watch?.stop().then(() => {
      stopped = true;
    });
    await sleep(0);
    expect(stopped).toBe(true);
    expect(watch?.ended).toEqual([]);
  });

  it('leaves the scripts of a page alone while the browser itself does not answer: the page is not why', async () => {
    const page = new FakePage();
    page.busy = true;
    page.browserAnswering = false;
    const watch = StuckPageWatch.start(page, 't1', 'take_snapshot', STUCK_MS);
    await sleep(STUCK_MS * 4);
    expect(page.asks).toBeGreaterThan(2);
    expect(page.ends).toBe(0);
    // The browser answers again while the page still does not: its silence counts from then on.
    page.browserAnswering = true;
    await sleep(STUCK_MS / 3 + 1);
    expect(page.ends).toBe(0);
    await sleep(STUCK_MS);
    await watch?.stop();
    expect(page.ends).toBe(1);
    expect(watch?.ended).toHaveLength(1);
  });

  it('is not started where there is nothing to watch: off, the tab unknown, or the agent running its own script', () => {
    const page = new FakePage();
    expect(StuckPageWatch.start(page, 't1', 'take_snapshot', 0)).toBeUndefined();
    expect(StuckPageWatch.start(page, null, 'take_snapshot', STUCK_MS)).toBeUndefined();
    expect(StuckPageWatch.start(undefined, 't1', 'take_snapshot', STUCK_MS)).toBeUndefined();
    expect(StuckPageWatch.start(page, 't1', 'evaluate_script', STUCK_MS)).toBeUndefined();
  });

  it('stops at once when the call ends, and asks nothing after', async () => {
    const page = new FakePage();
    page.busy = true;
    const watch = StuckPageWatch.start(page, 't1', 'take_snapshot', STUCK_MS);
    await watch?.stop();
    await sleep(STUCK_MS * 2);
    expect(page.asks).toBe(0);
    expect(page.ends).toBe(0);
  });

  it('stops watching a tab that closed', async () => {
    const page = new FakePage();
    page.busy = true;
    const watch = StuckPageWatch.start(page, 't1', 'take_snapshot', STUCK_MS);
    page.tab = { ...page.tab, tabId: 'other' };
    await sleep(STUCK_MS * 2);
    expect(page.asks).toBe(0);
    await watch?.stop();
  });
});

describe('stuckPageNote', () => {
  it('names the page, how long it was silent, and how often its script was ended', () => {
    expect(stuckPageNote(3, 'https://site/', [{ silentMs: 10_400 }])).toContain('your page 3 (https://site/) stopped responding');
    expect(stuckPageNote(3, 'https://site/', [{ silentMs: 10_400 }])).toContain('had run for at least 10 s without a break');
    expect(stuckPageNote(3, '', [{ silentMs: 10_000 }, { silentMs: 10_000 }])).toContain('(2 times during this call)');
  });
});
