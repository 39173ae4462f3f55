import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../shared/protocol.js';
import { textOf } from '../../../shared/toolResult.js';
import { FakeUpstream } from './testing/FakeUpstream.js';
import { fakeRouter } from './testing/fakeRouter.js';

/** A fake upstream whose `new_page` waits until the test lets it finish. */
class GatedUpstream extends FakeUpstream {
  gate: Promise<void> | undefined;
  started: (() => void) | undefined;

  override async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (name === 'new_page' && this.gate) {
      this.started?.();
      await this.gate;
    }
    return super.callTool(name, args);
  }
}

async function setup(workers = 1) {
  const { browser, upstreams, router } = await fakeRouter({ settings: { workers }, watchTabs: true, upstream: (on) => new GatedUpstream(on) });
  const tabOf = (id: string, pageId: number) => {
    const upstream = upstreams[router.sessionInfo(id).worker];
    return browser.tabs.find((tab) => upstream?.pageIdOf(tab) === pageId);
  };
  return { browser, upstreams, router, tabOf };
}

describe('SessionTabs', () => {
  it('gives a popup that opens after the call returned to the opener\'s session, with a note, and closes it with the session', async () => {
    const { router, browser, tabOf } = await setup(2);
    const first = router.createSession();
    const second = router.createSession();
    await router.callTool(first.id, 'new_page', { url: 'https://opener.example/' });
    await router.callTool(second.id, 'new_page', { url: 'https://other.example/' });
    const opener = tabOf(first.id, router.sessionPage(first.id).pageId ?? -1);
    expect(opener).toBeDefined();
    const popup = browser.open('https://popup.example/', '', opener?.tabId ?? null);

    const listed = await router.callTool(first.id, 'list_pages', {});
    expect(textOf(listed)).toContain('was opened by one of your pages and is now yours');
    expect(router.sessionInfo(first.id).pages.map((page) => [page.url, page.origin])).toContainEqual(['https://popup.example/', 'opened']);
    expect(router.sessionInfo(second.id).pages.map((page) => page.url)).toEqual(['https://other.example/']);

    await router.closeSession(first.id);
    expect(browser.tabs.map((tab) => tab.url)).not.toContain(popup.url);
    expect(browser.tabs.map((tab) => tab.url)).toContain('https://other.example/');
  });

  it('closes a popup its worker never listed when the session closes', async () => {
    const { router, browser, tabOf } = await setup();
    const session = router.createSession();
    await router.callTool(session.id, 'new_page', { url: 'https://opener.example/' });
    const opener = tabOf(session.id, router.sessionPage(session.id).pageId ?? -1);
    browser.open('https://late.example/', '', opener?.tabId ?? null);
    await router.closeSession(session.id);
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['https://human.example/']);
  });

  it('closes a session\'s tabs by tab id while its worker is down', async () => {
    const { router, browser, upstreams } = await setup();
    const session = router.createSession();
    await router.callTool(session.id, 'new_page', { url: 'https://a.example/' });
    await router.callTool(session.id, 'new_page', { url: 'https://b.example/' });
    await upstreams[0]?.close();
    const { closedPages } = await router.closeSession(session.id);
    expect(closedPages).toHaveLength(2);
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['https://human.example/']);
  });

  it('closes the tab of a new_page that was still running when its session closed', async () => {
    const { router, browser, upstreams } = await setup();
    const session = router.createSession();
    await router.callTool(session.id, 'list_pages', {});
    const upstream = upstreams[0];
    let release = (): void => undefined;
    const started = new Promise<void>((resolve) => {
      if (upstream) {
        upstream.started = resolve;
        upstream.gate = new Promise<void>((open) => {
          release = open;
        });
      }
    });
    const call = router.callTool(session.id, 'new_page', { url: 'https://slow.example/' });
    await started;
    await router.closeSession(session.id);
    release();
    await call.catch(() => undefined);
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['https://human.example/']);
  });

  it('keeps one tab open when a session owned every tab of the browser', async () => {
    const { router, browser } = await setup();
    const session = router.createSession();
    await router.callTool(session.id, 'new_page', { url: 'https://a.example/' });
    browser.remove(browser.tabs[0]?.tabId ?? '');
    await router.closeSession(session.id);
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['about:blank']);
  });

  it('drops a page closed by someone else and tells the session', async () => {
    const { router, browser, tabOf } = await setup();
    const session = router.createSession();
    await router.callTool(session.id, 'new_page', { url: 'https://a.example/' });
    const tab = tabOf(session.id, router.sessionPage(session.id).pageId ?? -1);
    browser.remove(tab?.tabId ?? '');
    expect(router.sessionInfo(session.id).pages).toEqual([]);
    const result = await router.callTool(session.id, 'list_pages', {});
    expect(textOf(result)).toContain('was closed outside this session');
  });
});
