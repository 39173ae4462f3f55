import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BrowserTab } from '../browser/BrowserTab.js';
import { HeldTabs, openerFamily, RESPONDS_WITHIN_MS, startWouldWait, STARTS_WITHIN_MS } from './heldTabs.js';
import { FakeBrowser } from './testing/FakeUpstream.js';

function tab(tabId: string, url: string, more: Partial<BrowserTab> = {}): BrowserTab {
  return { tabId, pageTargetId: `page-${tabId}`, openerTabId: null, url, title: '', dialog: null, answers: true, watchedSince: 0, ...more };
}

describe('openerFamily', () => {
  it('follows openers both ways, and nothing else', () => {
    const tabs = [tab('root', 'https://a/'), tab('child', 'https://b/', { openerTabId: 'root' }), tab('grandchild', 'https://c/', { openerTabId: 'child' }), tab('sibling', 'https://d/', { openerTabId: 'root' }), tab('stranger', 'https://e/')];
    expect(openerFamily(tabs, 'grandchild').map((member) => member.tabId).sort()).toEqual(['child', 'grandchild', 'root', 'sibling']);
    expect(openerFamily(tabs, 'stranger').map((member) => member.tabId)).toEqual(['stranger']);
    expect(openerFamily(tabs, 'gone')).toEqual([]);
  });
});

describe('HeldTabs', () => {
  it('holds nothing while no page shows a dialog and every page answers', () => {
    const held = new HeldTabs([tab('a', 'https://a/'), tab('b', 'https://b/')]);
    expect(held.any).toBe(false);
    expect(held.mayHold('https://a/')).toBe(false);
    expect(held.mayHold('https://nowhere/')).toBe(false);
    expect(held.mayHold(undefined)).toBe(false);
  });

  it("holds a dialog's tab and its opener family, and defers pages listed at their URLs or at URLs the browser does not know", () => {
    const tabs = [
      tab('opener', 'https://site/opener'),
      tab('popup', 'https://site/popup', { openerTabId: 'opener', dialog: { type: 'alert' } }),
      tab('other', 'https://other/'),
      tab('also-blank', 'about:blank'),
    ];
    const held = new HeldTabs(tabs);
    expect(['opener', 'popup', 'other'].filter((id) => held.has(id))).toEqual(['opener', 'popup']);
    expect(held.mayHold('https://site/popup')).toBe(true);
    expect(held.mayHold('https://site/opener')).toBe(true);
    // The listing may lag the browser: a URL no tab has could be the dialog's tab.
    expect(held.mayHold('https://site/not-yet')).toBe(true);
    expect(held.mayHold(undefined)).toBe(true);
    expect(held.mayHold('https://other/')).toBe(false);
    expect(held.mayHold('about:blank')).toBe(false);
  });

  it('holds a page that has not answered since the daemon attached, and its opener family', () => {
    const held = new HeldTabs([tab('opener', 'https://opener/'), tab('stuck', 'https://stuck/', { answers: false, openerTabId: 'opener' }), tab('stranger', 'https://stranger/')]);
    expect(['opener', 'stuck', 'stranger'].filter((id) => held.has(id))).toEqual(['opener', 'stuck']);
    expect(held.mayHold('https://stuck/')).toBe(true);
    expect(held.mayHold('https://opener/')).toBe(true);
    expect(held.mayHold('https://stranger/')).toBe(false);
  });

  it('defers a page that takes a held tab’s URL: the URL delays a lookup, it never names a tab', () => {
    const held = new HeldTabs([tab('dialog', 'https://shared/', { dialog: { type: 'confirm' } }), tab('copycat', 'https://shared/')]);
    expect(held.has('copycat')).toBe(false);
    expect(held.mayHold('https://shared/')).toBe(true);
  });
});

describe('startWouldWait', () => {
  it('says a worker started now would wait only while a tab shows a dialog or does not respond, not for a tab that just opened', async () => {
    const browser = new FakeBrowser(['about:blank', 'https://a.example/']);
    expect(await startWouldWait(undefined)).toBe(false);
    expect(await startWouldWait(browser)).toBe(false);
    const fresh = browser.open('https://fresh.example/');
    browser.markFresh(fresh.tabId);
    expect(new HeldTabs(browser.list()).any).toBe(true);
    expect(await startWouldWait(browser)).toBe(false);
    browser.showUnseenDialog(fresh.tabId);
    expect(await startWouldWait(browser)).toBe(true);
    const shown = browser.open('https://dialog.example/');
    browser.remove(fresh.tabId);
    expect(await startWouldWait(browser)).toBe(false);
    browser.showDialog(shown.tabId, 'confirm');
    expect(await startWouldWait(browser)).toBe(true);
    await browser.answerDialog(shown.tabId);
    expect(await startWouldWait(browser)).toBe(false);
  });

  describe('with a page that is still starting', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A browser whose probes are recorded: tab id -> how long the probe gave the page. */
    function probed(): { browser: FakeBrowser; deadlines: Map<string, number> } {
      const browser = new FakeBrowser(['about:blank']);
      const deadlines = new Map<string, number>();
      const responds = browser.responds.bind(browser);
      browser.responds = (tabId: string, withinMs?: number) => {
        deadlines.set(tabId, withinMs ?? Infinity);
        return responds(tabId, withinMs);
      };
      return { browser, deadlines };
    }

    it('gives a page that opened a moment ago until STARTS_WITHIN_MS after it attached to run script, and counts it when it does not', async () => {
      vi.useFakeTimers({ now: 1_000_000 });
      const { browser, deadlines } = probed();
      // A page whose renderer gets to it late, as on a loaded machine: it runs nothing until then.
      const starting = browser.open('https://starting.example/');
      browser.markFresh(starting.tabId, 3 * RESPONDS_WITHIN_MS);
      const answer = startWouldWait(browser);
      await vi.advanceTimersByTimeAsync(3 * RESPONDS_WITHIN_MS);
      expect(await answer).toBe(false);
      expect(deadlines.get(starting.tabId)).toBe(STARTS_WITHIN_MS);

      // One that shows a dialog nobody saw is held all the same.
      const held = browser.open('https://held.example/');
      browser.showUnseenDialog(held.tabId);
      expect(await startWouldWait(browser)).toBe(true);
    });

    it('gives a page the daemon has watched for longer only RESPONDS_WITHIN_MS', async () => {
      vi.useFakeTimers({ now: 1_000_000 });
      const { browser, deadlines } = probed();
      const late = browser.open('https://late.example/');
      late.watchedSince -= STARTS_WITHIN_MS;
      browser.markFresh(late.tabId, 3 * RESPONDS_WITHIN_MS);
      const almost = browser.open('https://almost.example/');
      almost.watchedSince -= STARTS_WITHIN_MS - RESPONDS_WITHIN_MS / 2;
      browser.markFresh(almost.tabId);
      expect(await startWouldWait(browser)).toBe(true);
      expect(deadlines.get(late.tabId)).toBe(RESPONDS_WITHIN_MS);
      expect(deadlines.get(almost.tabId)).toBe(RESPONDS_WITHIN_MS);
    });
  });
});
