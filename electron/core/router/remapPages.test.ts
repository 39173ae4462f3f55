import { describe, expect, it } from 'vitest';
import { Session } from './Session.js';
import { TabIdentity } from './TabIdentity.js';
import { FakeBrowser, FakeUpstream, fakeWorker } from './testing/FakeUpstream.js';
import { movePages, remapPages } from './remapPages.js';
import { MOVED_SINCE } from './WorkerPool.js';

function setup() {
  const browser = new FakeBrowser(['about:blank', 'https://a.example/', 'https://b.example/']);
  const upstream = new FakeUpstream(browser);
  // The first process saw the tabs in another order than a fresh one will.
  const [blank, a, b] = browser.tabs;
  for (const tab of [b, a, blank]) {
    if (tab) {
      upstream.pageIdOf(tab);
    }
  }
  const w1 = fakeWorker(upstream, 1);
  const mine = new Session('sess-00000000aaaa0000', 'aaaa0000', null, 1, Date.now());
  const sessions = new Map([[mine.id, mine]]);
  const tabs = new TabIdentity({ available: () => true, sessions: () => sessions.values(), sessionById: (id) => sessions.get(id) });
  return { browser, w1, mine, tabs };
}

describe('remapPages', () => {
  it('keeps a session with no pages out of it', async () => {
    const { w1, tabs, browser } = setup();
    const restarted = new FakeUpstream(browser);
    w1.owners.set(7, 'sess-gone');
    await remapPages(w1, restarted, [], tabs);
    expect(w1.owners.size).toBe(0);
    expect(restarted.calls).toEqual([]);
  });

  it('finds a session\'s tabs again after its worker restarted and renumbered them', async () => {
    const { browser, w1, mine, tabs } = setup();
    for (const [pageId, url] of [[1, 'https://b.example/'], [2, 'https://a.example/']] as const) {
      mine.addPage(pageId, 'created', url);
      w1.owners.set(pageId, mine.id);
    }
    mine.select(1);
    await tabs.learn(mine, w1);
    const token = mine.newEpoch(mine.pages.get(1) ?? mine.addPage(0, 'created'), new Set(['1_0']));
    browser.remove(browser.tabs[1]?.tabId ?? '');

    w1.noteFailure('chrome-devtools-mcp exited unexpectedly');
    // The new process numbers tabs in browser order: blank 1, b 2.
    const restarted = new FakeUpstream(browser);
    await remapPages(w1, restarted, [mine], tabs);
    expect([...mine.pages.keys()]).toEqual([2]);
    expect(mine.currentPage?.url).toBe('https://b.example/');
    expect(mine.pageForEpoch(token)).toBeUndefined();
    expect(w1.owners.get(2)).toBe(mine.id);
    expect(mine.notes.join('\n')).toMatch(/your page\(s\) 2 \(https:\/\/a\.example\/\) were lost/);
    // The new process is asked before it takes calls; the worker adopts it only once prepared.
    expect(w1.upstream).toBeNull();
    expect(restarted.calls.map((call) => call.name)).toContain('get_tab_id');
  });

  it('sets aside a page a dialog holds when the worker restarts, keeps it the session’s, and brings it back as it was', async () => {
    const { browser, w1, mine, tabs } = setup();
    tabs.follow(browser);
    mine.addPage(1, 'attached', 'https://b.example/');
    mine.addPage(2, 'created', 'https://a.example/');
    w1.owners.set(1, mine.id);
    w1.owners.set(2, mine.id);
    mine.select(1);
    await tabs.learn(mine, w1);
    const b = browser.tabs[2];
    if (!b) {
      throw new Error('no tab b');
    }
    browser.showDialog(b.tabId);

    w1.noteFailure('chrome-devtools-mcp exited unexpectedly');
    const restarted = new FakeUpstream(browser);
    await remapPages(w1, restarted, [mine], tabs);
    expect(restarted.hung).toEqual([]);
    expect([...mine.pages.values()].map((page) => page.url)).toEqual(['https://a.example/']);
    expect(mine.pendingTabs.has(b.tabId)).toBe(true);
    expect(tabs.sessionOwningTab(b.tabId)).toBe(mine);
    expect(mine.notes.join('\n')).toContain('waits on a dialog');
    expect(mine.notes.join('\n')).not.toContain('were lost');

    await browser.answerDialog(b.tabId);
    w1.upstream = restarted;
    await tabs.adoptPending(mine, w1);
    const back = [...mine.pages.values()].find((page) => page.tabId === b.tabId);
    expect(back?.origin).toBe('attached');
    expect(back?.pageId).toBe(restarted.pageIdOf(b));
    expect(mine.notes.join('\n')).toContain('is back, as page');
  });

  it('closes with the session the tabs it made that were set aside, and leaves attached ones open', async () => {
    const { browser, w1, mine, tabs } = setup();
    tabs.follow(browser);
    mine.addPage(1, 'attached', 'https://b.example/');
    mine.addPage(2, 'created', 'https://a.example/');
    w1.owners.set(1, mine.id);
    w1.owners.set(2, mine.id);
    await tabs.learn(mine, w1);
    const [, a, b] = browser.tabs;
    if (!a || !b) {
      throw new Error('no tabs');
    }
    browser.showDialog(a.tabId);
    browser.showDialog(b.tabId);
    w1.noteFailure('chrome-devtools-mcp exited unexpectedly');
    await remapPages(w1, new FakeUpstream(browser), [mine], tabs);
    expect(mine.pages.size).toBe(0);
    expect(tabs.leavePending(mine)).toEqual([a.tabId]);
    expect(mine.pendingTabs.size).toBe(0);
  });

  it('keeps a session on its worker while a dialog holds one of its pages', async () => {
    const { browser, w1, mine, tabs } = setup();
    tabs.follow(browser);
    mine.addPage(1, 'created', 'https://b.example/');
    w1.owners.set(1, mine.id);
    await tabs.learn(mine, w1);
    browser.showDialog(browser.tabs[2]?.tabId ?? '');
    const other = fakeWorker(new FakeUpstream(browser), 2);
    await expect(movePages(mine, w1, other, tabs, MOVED_SINCE.busy)).rejects.toMatchObject({ code: 'dialog_open' });
    expect([...mine.pages.keys()]).toEqual([1]);
    expect(w1.owners.get(1)).toBe(mine.id);
  });
});
