import { describe, expect, it } from 'vitest';
import { Session } from './Session.js';
import { TabIdentity } from './TabIdentity.js';
import { FakeBrowser, FakeUpstream, fakeWorker } from './testing/FakeUpstream.js';
import { remapPages } from './remapPages.js';

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
});
