import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { NodeWebSocketTransport } from 'puppeteer-core/internal/node/NodeWebSocketTransport.js';
import type { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { waitFor } from '../helpers/waitFor.js';
import { html, pagesOf, startTestDaemon, uidOf, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';

interface ListedTarget {
  id: string;
  type: string;
  url: string;
}

/**
 * A window per session, checked through Chrome itself: the test's own CDP connection tells each tab's window, never
 * tabmux's answer alone.
 */
describe.each([1, 2])('a window per session, %i worker(s)', (workers) => {
  let t: TestDaemon;
  let control: DaemonClient;
  let chrome: Connection;
  let port: number;

  beforeAll(async () => {
    t = await startTestDaemon({ isolation: 'window', workers });
    control = await t.connect();
    const status = await control.call('tabmux/status');
    if (status.chrome.port === null) {
      throw new Error('the daemon reports no DevTools port');
    }
    port = status.chrome.port;
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { webSocketDebuggerUrl: string };
    chrome = new Connection(version.webSocketDebuggerUrl, await NodeWebSocketTransport.create(version.webSocketDebuggerUrl), 0, 30_000, false);
  });

  afterAll(async () => {
    chrome.dispose();
    await t.stop();
  });

  const pageTargets = async (): Promise<ListedTarget[]> => {
    const listed = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as ListedTarget[];
    return listed.filter((target) => target.type === 'page');
  };

  /** The window Chrome has the page with this URL in. */
  const windowOfUrl = async (url: string): Promise<number> => {
    const target = (await pageTargets()).find((candidate) => candidate.url === url);
    if (!target) {
      throw new Error(`no tab at ${url}`);
    }
    return (await chrome.send('Browser.getWindowForTarget', { targetId: target.id })).windowId;
  };

  const windowExists = (windowId: number): Promise<boolean> =>
    chrome.send('Browser.getWindowBounds', { windowId }).then(
      () => true,
      () => false,
    );

  const open = async (session: BoundSession, name: string): Promise<string> => {
    const url = html(`<p>${name}</p>`, name);
    const listed = pagesOf(await session.text('new_page', { url }));
    // Upstream's page list, rewritten as always: the session's new page is its selected one.
    expect(listed.selected).toBe((await control.call('tabmux/session.page', { session: session.id })).pageId);
    return url;
  };

  it("puts each session's pages in one window of its own, apart from other sessions and a person's tab, and closes it with the session", async () => {
    const personUrl = html(`<p>person ${workers}</p>`, 'Person');
    const { targetId: personTab } = await chrome.send('Target.createTarget', { url: personUrl });
    const personWindow = (await chrome.send('Browser.getWindowForTarget', { targetId: personTab })).windowId;

    const a = await t.session('a');
    const b = await t.session('b');
    const a1 = await open(a, `a1-${workers}`);
    const b1 = await open(b, `b1-${workers}`);
    const a2 = await open(a, `a2-${workers}`);
    const b2 = await open(b, `b2-${workers}`);
    // A page-scoped call of a session without pages opens its first page too, in a window of its own.
    const c = await t.session('c');
    await c.text('take_snapshot');
    const cPage = (await control.call('tabmux/session.page', { session: c.id })).pageId;

    const wa1 = await windowOfUrl(a1);
    const wa2 = await windowOfUrl(a2);
    const wb1 = await windowOfUrl(b1);
    const wb2 = await windowOfUrl(b2);
    expect(wa2).toBe(wa1);
    expect(wb2).toBe(wb1);
    expect(wa1).not.toBe(wb1);
    expect([wa1, wb1]).not.toContain(personWindow);
    expect(cPage).not.toBeNull();

    // The person's tab stays where it was, as it was, and its window holds no session's tab.
    expect(await windowOfUrl(personUrl)).toBe(personWindow);
    const inPersonWindow = await Promise.all((await pageTargets()).map(async (target) => ({ url: target.url, windowId: (await chrome.send('Browser.getWindowForTarget', { targetId: target.id })).windowId })));
    expect(inPersonWindow.filter((tab) => tab.windowId === personWindow).map((tab) => tab.url)).not.toContain(a1);
    expect(inPersonWindow.filter((tab) => [wa1, wb1].includes(tab.windowId)).map((tab) => tab.url).sort()).toEqual([a1, a2, b1, b2].sort());

    // `tabmux pages` tells the same windows as Chrome.
    const listed = (await control.call('tabmux/tabs.list')).tabs;
    expect(listed.find((tab) => tab.url === a2)?.windowId).toBe(wa1);
    expect(listed.find((tab) => tab.url === b1)?.windowId).toBe(wb1);
    expect(listed.find((tab) => tab.url === personUrl)?.windowId).toBe(personWindow);

    // A popup opens beside its opener, in the session's window, and is the session's.
    const popupUrl = `about:blank#popup-${workers}`;
    await a.text('new_page', { url: html(`<a href="${popupUrl}" target="_blank">open</a>`, 'Opener') });
    await a.text('click', { uid: uidOf(await a.text('take_snapshot'), 'link', 'open') });
    expect(await windowOfUrl(popupUrl)).toBe(wa1);
    // The click's answer gives the session its popup when upstream saw it open in time; otherwise the daemon hears of
    // it on its own connection to Chrome, which may be a moment behind the test's, and the session's next call takes
    // it (every call meanwhile answers: `text` fails on any error).
    const origins = await waitFor(async () => {
      await a.text('list_pages');
      const pages = (await control.call('tabmux/session.page', { session: a.id })).pages.map((page) => page.origin).sort();
      return pages.includes('opened') ? pages : undefined;
    }, 'the popup to be the session\'s page');
    expect(origins).toEqual(['created', 'created', 'created', 'opened']);

    // A tab a person opens through tabmux gets a window of its own, never a session's (the last active window).
    const loginUrl = html(`<p>login ${workers}</p>`, 'Login');
    await control.call('tabmux/tabs.open', { url: loginUrl });
    expect([wa1, wb1]).not.toContain(await windowOfUrl(loginUrl));

    // Each session lists only its own pages, as before.
    expect(await a.text('list_pages')).not.toContain(`b1-${workers}`);

    await control.call('tabmux/session.close', { session: a.id });
    expect(await windowExists(wa1)).toBe(false);
    const left = (await pageTargets()).map((target) => target.url);
    expect(left).not.toContain(a1);
    expect(left).not.toContain(a2);
    expect(left).not.toContain(popupUrl);
    expect(left).toEqual(expect.arrayContaining([b1, b2, personUrl]));
    expect(await windowExists(wb1)).toBe(true);
    expect(await windowOfUrl(personUrl)).toBe(personWindow);

    await control.call('tabmux/session.close', { session: b.id });
    await control.call('tabmux/session.close', { session: c.id });
    expect(await windowExists(wb1)).toBe(false);
    expect((await pageTargets()).map((target) => target.url)).toEqual(expect.arrayContaining([personUrl, loginUrl]));
  });
});
