import { describe, expect, it } from 'vitest';
import { Session } from './Session.js';
import { TabIdentity } from './TabIdentity.js';
import { FakeBrowser, FakeUpstream, fakeWorker } from './testing/FakeUpstream.js';

/** Two workers on one browser: the same tab has a different page id in each. */
function setup(available = true) {
  const browser = new FakeBrowser(['about:blank', 'https://a.example/', 'https://b.example/']);
  const upstreams = [new FakeUpstream(browser), new FakeUpstream(browser)];
  // Worker 1 first saw the tabs in another order, so its ids differ from worker 0's.
  const [blank, a, b] = browser.tabs;
  for (const tab of [b, a, blank]) {
    if (tab) {
      upstreams[1]?.pageIdOf(tab);
    }
  }
  const workers = upstreams.map((upstream, index) => fakeWorker(upstream, index));
  const mine = new Session('sess-00000000aaaa0000', 'aaaa0000', null, 1, Date.now());
  const other = new Session('sess-00000000bbbb0000', 'bbbb0000', null, 0, Date.now());
  const sessions = new Map([mine, other].map((session) => [session.id, session]));
  const tabs = new TabIdentity({ available: () => available, sessions: () => sessions.values(), sessionById: (id) => sessions.get(id) });
  return { browser, upstreams, workers, mine, other, tabs };
}

describe('TabIdentity', () => {
  it('knows each page\'s Chrome tab id and asks upstream once per page', async () => {
    const { upstreams, workers, browser, tabs } = setup();
    const worker = workers[0];
    if (!worker) {
      throw new Error('no worker');
    }
    expect(await tabs.tabIdOf(worker, 2)).toBe(browser.tabs[1]?.tabId);
    expect(await tabs.tabIdOf(worker, 2)).toBe(browser.tabs[1]?.tabId);
    expect(upstreams[0]?.calls.filter((call) => call.name === 'get_tab_id')).toHaveLength(1);
    expect(await tabs.tabIdOf(worker, 42)).toBeUndefined();
  });

  it('maps tab ids to each worker\'s own page ids', async () => {
    const { workers, browser, tabs } = setup();
    const [w0, w1] = workers;
    if (!w0 || !w1) {
      throw new Error('no workers');
    }
    const byTab0 = await tabs.pageIdsByTab(w0);
    const byTab1 = await tabs.pageIdsByTab(w1);
    const a = browser.tabs[1]?.tabId ?? '';
    expect(byTab0.get(a)).toBe(2);
    expect(byTab1.get(a)).toBe(2);
    const b = browser.tabs[2]?.tabId ?? '';
    expect(byTab0.get(b)).toBe(3);
    expect(byTab1.get(b)).toBe(1);
  });

  it('finds only the wanted tabs on a worker, asking first about pages at their URLs, and stops once all are found', async () => {
    const { upstreams, workers, browser, tabs } = setup();
    const w1 = workers[1];
    const a = browser.tabs[1];
    if (!w1 || !a) {
      throw new Error('no worker');
    }
    // Worker 1 lists b (page 1) before a (page 2): a's URL puts a first, so b is never asked about.
    const found = await tabs.pageIdsOfTabs(w1, new Map([[a.tabId, 'https://a.example/']]));
    expect(found).toEqual(new Map([[a.tabId, 2]]));
    expect(upstreams[1]?.calls.filter((call) => call.name === 'get_tab_id')).toHaveLength(1);
  });

  it('finds a tab\'s owner from another worker by tab id, and refuses others\' pages', async () => {
    const { workers, browser, mine, other, tabs } = setup();
    const [w0, w1] = workers;
    if (!w0 || !w1) {
      throw new Error('no workers');
    }
    // `mine` lives on worker 1 and owns tab b there (page 1); worker 0 calls the same tab page 3.
    mine.addPage(1, 'created', 'https://b.example/');
    w1.owners.set(1, mine.id);
    await tabs.learn(mine, w1);
    expect(mine.pages.get(1)?.tabId).toBe(browser.tabs[2]?.tabId);
    expect(tabs.sessionOwningTab(browser.tabs[2]?.tabId ?? '')).toBe(mine);
    expect(await tabs.ownerOf(w0, 3)).toBe(mine);
    expect(await tabs.ownerOf(w0, 2)).toBeUndefined();
    expect([...(await tabs.unowned(w0, [1, 2, 3]))]).toEqual([1, 2]);

    await expect(tabs.assertOwn(other, w0, 3)).rejects.toMatchObject({ code: 'page_conflict' });
    await expect(tabs.assertOwn(other, w0, 2)).rejects.toMatchObject({ code: 'unknown_page' });
    await expect(tabs.assertOwn(mine, w1, 1)).resolves.toBeUndefined();
  });

  it('does not ask for tab ids when upstream cannot tell them', async () => {
    const { upstreams, workers, mine, tabs } = setup(false);
    const w1 = workers[1];
    if (!w1) {
      throw new Error('no worker');
    }
    mine.addPage(1, 'created');
    await tabs.learn(mine, w1);
    expect(await tabs.ownerOf(w1, 2)).toBeUndefined();
    expect(mine.pages.get(1)?.tabId).toBeNull();
    expect(upstreams[1]?.calls).toEqual([]);
  });

  it('never asks upstream about a tab a dialog holds that it has not looked at, and maps it once the dialog is closed', async () => {
    const { browser, upstreams, workers, tabs } = setup();
    const w1 = workers[1];
    const a = browser.tabs[1];
    if (!w1 || !a) {
      throw new Error('no worker');
    }
    tabs.follow(browser);
    browser.showDialog(a.tabId);
    const held = await tabs.pageIdsByTab(w1);
    expect(held.has(a.tabId)).toBe(false);
    expect([...held.keys()].sort()).toEqual([browser.tabs[0]?.tabId, browser.tabs[2]?.tabId].sort());
    expect(await tabs.tabIdOf(w1, 2)).toBeUndefined();
    expect(upstreams[1]?.hung).toEqual([]);

    await browser.answerDialog(a.tabId);
    expect((await tabs.pageIdsByTab(w1)).get(a.tabId)).toBe(2);
  });

  it('leaves a page at a held tab’s URL unowned by anyone and unlisted as unowned until the dialog closes', async () => {
    const { browser, upstreams, workers, mine, tabs } = setup();
    const [w0, w1] = workers;
    const [blank, a, b] = browser.tabs;
    if (!w0 || !w1 || !blank || !a || !b) {
      throw new Error('no workers');
    }
    tabs.follow(browser);
    mine.addPage(2, 'created', a.url);
    w1.owners.set(2, mine.id);
    await tabs.learn(mine, w1);
    browser.showDialog(a.tabId, 'confirm');
    // Another page takes the dialog's URL: it only delays its own lookup.
    const copycat = browser.open(a.url);
    await tabs.pageIdsByTab(w0);
    const copycatId = upstreams[0]?.pageIdOf(copycat) ?? -1;
    expect(copycatId).toBe(4);
    await expect(tabs.ownerOf(w0, 2)).rejects.toMatchObject({ code: 'dialog_open' });
    await expect(tabs.ownerOf(w0, copycatId)).rejects.toMatchObject({ code: 'dialog_open' });
    expect(await tabs.shownOwnerOf(w0, copycatId)).toBeUndefined();
    expect([...(await tabs.unowned(w0, [1, 2, 3, copycatId]))].sort()).toEqual([1, 3]);
    await expect(tabs.assertOwn(mine, w1, 2)).resolves.toBeUndefined();

    await browser.answerDialog(a.tabId);
    expect(await tabs.ownerOf(w0, 2)).toBe(mine);
    expect(await tabs.ownerOf(w0, copycatId)).toBeUndefined();
  });

  it('tells a session once that its popup shows a dialog, and adopts the popup once the dialog is closed', async () => {
    const { browser, workers, mine, tabs } = setup();
    const w1 = workers[1];
    const b = browser.tabs[2];
    if (!w1 || !b) {
      throw new Error('no worker');
    }
    tabs.follow(browser);
    mine.addPage(1, 'created', b.url);
    w1.owners.set(1, mine.id);
    await tabs.learn(mine, w1);
    const popup = browser.open('https://popup.example/', 'Popup', b.tabId);
    browser.showDialog(popup.tabId, 'prompt');
    expect(tabs.popupOpened(popup.tabId, b.tabId)).toBe(mine);

    await tabs.adoptPending(mine, w1);
    await tabs.adoptPending(mine, w1);
    expect(mine.notes.filter((note) => note.includes('shows a prompt dialog and waits for an answer'))).toHaveLength(1);
    expect(mine.notes.join('\n')).toContain('https://popup.example/');
    expect([...mine.pages.values()].map((page) => page.url)).toEqual([b.url]);
    expect(mine.pendingTabs.has(popup.tabId)).toBe(true);

    await browser.answerDialog(popup.tabId);
    await tabs.adoptPending(mine, w1);
    expect([...mine.pages.values()].map((page) => [page.url, page.origin, page.tabId])).toContainEqual(['https://popup.example/', 'opened', popup.tabId]);
    expect(mine.pendingTabs.size).toBe(0);
  });
});
