import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import type { Isolation } from './RouterSettings.js';
import { FIRST_WINDOW } from './testing/FakeUpstream.js';
import { fakeRouter } from './testing/fakeRouter.js';

async function setup(isolation: Isolation, workers = 2) {
  const { browser, upstreams, router } = await fakeRouter({ settings: { workers, isolation }, watchTabs: true });
  /** The windows holding a session's pages, as the browser has them. */
  const windowsOf = (id: string): number[] => {
    const info = router.sessionInfo(id);
    const upstream = upstreams[info.worker];
    return info.pages.map((page) => browser.tabs.find((tab) => upstream?.pageIdOf(tab) === page.pageId)?.windowId ?? -1);
  };
  return { browser, upstreams, router, windowsOf };
}

describe('PageAllocator with a window per session', () => {
  it("opens a session's first page in a new window and its later pages in that window, apart from other sessions and people", async () => {
    const { router, browser, windowsOf, upstreams } = await setup('window');
    const human = browser.tabs[0];
    const first = router.createSession();
    const second = router.createSession();
    const opened = await router.callTool(first.id, 'new_page', { url: 'https://a.example/' });
    expect(opened.isError).toBeUndefined();
    expect(textOf(opened)).toContain('https://a.example/');
    await router.callTool(first.id, 'new_page', { url: 'https://b.example/' });
    await router.callTool(second.id, 'take_snapshot', {});
    await router.newPage(second.id, 'https://c.example/', true);

    const [a, b] = windowsOf(first.id);
    const [c, d] = windowsOf(second.id);
    expect(windowsOf(first.id)).toHaveLength(2);
    expect(a).toBe(b);
    expect(c).toBe(d);
    expect(new Set([a, c, FIRST_WINDOW]).size).toBe(3);
    expect(human).toMatchObject({ url: 'https://human.example/', windowId: FIRST_WINDOW });
    // Upstream's new_page cannot choose a window: it is never asked.
    expect(upstreams.flatMap((upstream) => upstream.calls).some((call) => call.name === 'new_page')).toBe(false);
    expect(router.sessionInfo(first.id).pages.map((page) => page.url)).toEqual(['https://a.example/', 'https://b.example/']);
  });

  it("closes its window's tabs when the session closes, and leaves everyone else's", async () => {
    const { router, browser, windowsOf } = await setup('window');
    const first = router.createSession();
    const second = router.createSession();
    await router.callTool(first.id, 'new_page', { url: 'https://a.example/' });
    await router.callTool(first.id, 'new_page', { url: 'https://b.example/' });
    await router.callTool(second.id, 'new_page', { url: 'https://c.example/' });
    const [window] = windowsOf(first.id);
    const { closedPages } = await router.closeSession(first.id);
    expect(closedPages).toHaveLength(2);
    expect(browser.tabs.filter((tab) => tab.windowId === window)).toEqual([]);
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['https://human.example/', 'https://c.example/']);
  });

  it('opens a new window once every tab of the old one is gone', async () => {
    const { router, browser, windowsOf } = await setup('window', 1);
    const session = router.createSession();
    await router.callTool(session.id, 'new_page', { url: 'https://a.example/' });
    const [old] = windowsOf(session.id);
    const tab = browser.tabs.find((candidate) => candidate.windowId === old);
    browser.remove(tab?.tabId ?? '');
    await router.callTool(session.id, 'new_page', { url: 'https://b.example/' });
    const [now] = windowsOf(session.id);
    expect(now).not.toBe(old);
    expect(now).not.toBe(FIRST_WINDOW);
  });

  it("opens a person's tab in a window of its own, never in a session's", async () => {
    const { router, browser, windowsOf } = await setup('window', 1);
    const session = router.createSession();
    await router.callTool(session.id, 'new_page', { url: 'https://a.example/' });
    const opened = await router.openTab('https://login.example/');
    expect(opened).toMatchObject({ owner: null, url: 'https://login.example/' });
    const windowId = browser.tabs.find((tab) => tab.url === 'https://login.example/')?.windowId;
    expect([FIRST_WINDOW, ...windowsOf(session.id)]).not.toContain(windowId);
  });

  it('closes the tab again when its navigation fails, and gives the session nothing', async () => {
    const { router, browser, upstreams } = await setup('window', 1);
    const session = router.createSession();
    await router.callTool(session.id, 'list_pages', {});
    upstreams[0]?.failingUrls.add('http://127.0.0.1:9/');
    const result = await router.callTool(session.id, 'new_page', { url: 'http://127.0.0.1:9/' });
    expect(result.isError).toBe(true);
    expect(router.sessionInfo(session.id).pages).toEqual([]);
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['https://human.example/']);
  });

  it('opens tabs where upstream puts them without window isolation', async () => {
    const { router, windowsOf } = await setup('tab');
    const session = router.createSession();
    await router.callTool(session.id, 'new_page', { url: 'https://a.example/' });
    expect(windowsOf(session.id)).toEqual([FIRST_WINDOW]);
  });
});
