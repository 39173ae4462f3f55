import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { NodeWebSocketTransport } from 'puppeteer-core/internal/node/NodeWebSocketTransport.js';
import type { BrowserTab } from '../../electron/core/browser/BrowserTab.js';
import { BrowserTabs } from '../../electron/core/browser/BrowserTabs.js';
import { ControlSurfaceGuard } from '../../electron/core/browser/ControlSurfaceGuard.js';
import { createUrlPolicy } from '../../electron/core/browser/urlPolicy.js';
import { ChromeProcess } from '../../electron/core/browser/ChromeProcess.js';
import { findChrome } from '../../electron/core/browser/findChrome.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { RESPONDS_WITHIN_MS, startWouldWait } from '../../electron/core/router/heldTabs.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor } from '../helpers/waitFor.js';

let chrome: ChromeProcess;
let connection: Connection;
let tabs: BrowserTabs;
let cleanup: () => void;
let home: string;
const refused: string[] = [];
const opened: BrowserTab[] = [];
const closed: string[] = [];

beforeAll(async () => {
  const testHome = makeTestHome();
  cleanup = testHome.cleanup;
  home = testHome.home;
  chrome = await ChromeProcess.launch({ executable: findChrome(undefined), userDataDir: `${home}/chrome`, headless: true, extraArgs: [], logger: Logger.silent() });
  const version = (await (await fetch(`${chrome.browserUrl}/json/version`)).json()) as { webSocketDebuggerUrl: string };
  connection = new Connection(version.webSocketDebuggerUrl, await NodeWebSocketTransport.create(version.webSocketDebuggerUrl), 0, 30_000, false);
  tabs = await BrowserTabs.watch(connection);
  tabs.on('opened', (tab) => opened.push({ ...tab }));
  tabs.on('closed', (tab) => closed.push(tab.tabId));
  const policy = createUrlPolicy({ debuggingPort: chrome.port, protectedRoots: [`${home}/chrome`] });
  await ControlSurfaceGuard.install(connection, policy, chrome.port, { refused: ({ url }) => refused.push(url) });
});

afterAll(async () => {
  connection.dispose();
  await chrome.close();
  cleanup();
});

async function openTab(url: string): Promise<BrowserTab> {
  const { targetId } = await connection.send('Target.createTarget', { url, background: true });
  const tab = await waitFor(() => tabs.list().find((candidate) => candidate.pageTargetId === targetId), `tab of ${url}`);
  return tab;
}

describe('BrowserTabs', () => {
  it('names each tab and its page, and the opener of popups whenever they open', async () => {
    const parent = await openTab('about:blank?parent');
    const { sessionId } = await connection.send('Target.attachToTarget', { targetId: parent.pageTargetId ?? '', flatten: true });
    const page = connection.session(sessionId);
    // A popup right away and one a moment after the script returned, as a hostile page would.
    // (Each gesture allows one popup: opening one uses up the activation.)
    await page?.send('Runtime.evaluate', { expression: `window.open('about:blank?now'); 1`, userGesture: true });
    await page?.send('Runtime.evaluate', { expression: `setTimeout(() => window.open('about:blank?late'), 400); 1`, userGesture: true });
    const now = await waitFor(() => opened.find((tab) => tab.url.endsWith('?now') || tabs.get(tab.tabId)?.url.endsWith('?now')), 'the immediate popup');
    const late = await waitFor(() => opened.find((tab) => tabs.get(tab.tabId)?.url.endsWith('?late')), 'the late popup');
    expect(now.openerTabId).toBe(parent.tabId);
    expect(late.openerTabId).toBe(parent.tabId);
    expect(opened.find((tab) => tab.tabId === parent.tabId)?.openerTabId).toBeNull();
  });

  it('tells which tab shows a dialog (its kind only), answers it, and whether pages sharing its renderer run', async () => {
    const opener = await openTab('about:blank?dialog-opener');
    const stranger = await openTab('about:blank?stranger');
    await waitFor(() => (tabs.get(opener.tabId)?.answers === true ? true : undefined), 'the opener to answer the daemon');
    const { sessionId } = await connection.send('Target.attachToTarget', { targetId: opener.pageTargetId ?? '', flatten: true });
    const dialogEvents: string[] = [];
    tabs.on('dialog', (tab) => dialogEvents.push(`${tab.url}:${tab.dialog?.type ?? 'closed'}`));
    // The alert is the popup's, opened once the script that opened the popup returned.
    await connection.session(sessionId)?.send('Runtime.evaluate', { expression: `const w = window.open('about:blank?dialog'); setTimeout(() => w.alert('secret text'), 50); 1`, userGesture: true });
    const popup = await waitFor(() => tabs.list().find((tab) => tab.url.endsWith('?dialog') && tab.dialog !== null), "the popup's dialog");
    expect(popup.dialog).toEqual({ type: 'alert' });
    expect(popup.openerTabId).toBe(opener.tabId);
    expect(await tabs.responds(opener.tabId, 500)).toBe(false);
    expect(await tabs.responds(stranger.tabId, 10_000)).toBe(true);

    expect(await tabs.answerDialog(popup.tabId, true)).toBe(true);
    await waitFor(() => (tabs.get(popup.tabId)?.dialog === null ? true : undefined), 'the dialog to close');
    expect(await tabs.responds(opener.tabId, 10_000)).toBe(true);
    expect(await tabs.answerDialog(popup.tabId, true)).toBe(false);
    expect(dialogEvents).toEqual(['about:blank?dialog:alert', 'about:blank?dialog:closed']);
  });

  it('says a worker started now would wait while a page shows a dialog, and not because a tab has just opened', async () => {
    expect(await startWouldWait(tabs)).toBe(false);
    // Asked the moment the tab is reported, before its page could answer the daemon's connection.
    const asked: Array<{ tabId: string; answered: boolean | undefined; wouldWait: Promise<boolean> }> = [];
    const onOpened = (tab: BrowserTab): void => {
      asked.push({ tabId: tab.tabId, answered: tabs.get(tab.tabId)?.answers, wouldWait: startWouldWait(tabs) });
    };
    tabs.on('opened', onOpened);
    const fresh = await openTab('about:blank?fresh').finally(() => tabs.off('opened', onOpened));
    const first = asked.find((entry) => entry.tabId === fresh.tabId);
    expect(first?.answered).toBe(false);
    expect(await first?.wouldWait).toBe(false);

    const { sessionId } = await connection.send('Target.attachToTarget', { targetId: fresh.pageTargetId ?? '', flatten: true });
    await connection.session(sessionId)?.send('Runtime.evaluate', { expression: `setTimeout(() => alert('hold'), 0); 1` });
    await waitFor(() => (tabs.get(fresh.tabId)?.dialog ? true : undefined), 'the alert');
    expect(await startWouldWait(tabs)).toBe(true);
    expect(await tabs.answerDialog(fresh.tabId, true)).toBe(true);
    await waitFor(() => (tabs.get(fresh.tabId)?.dialog === null ? true : undefined), 'the alert to close');
    expect(await startWouldWait(tabs)).toBe(false);
  });

  it('does not count a page that opened a moment ago as held while it is slow to start', async () => {
    // A popup shares its opener's renderer, which the opener keeps busy longer than the usual probe waits: the popup
    // starts that late, as any page may on a loaded machine.
    const busyMs = 3 * RESPONDS_WITHIN_MS;
    const opener = await openTab('about:blank?busy-opener');
    const { sessionId } = await connection.send('Target.attachToTarget', { targetId: opener.pageTargetId ?? '', flatten: true });
    const asked: Array<{ tabId: string; quick: Promise<boolean>; wouldWait: Promise<boolean> }> = [];
    const onOpened = (tab: BrowserTab): void => {
      asked.push({ tabId: tab.tabId, quick: tabs.responds(tab.tabId, RESPONDS_WITHIN_MS), wouldWait: startWouldWait(tabs) });
    };
    tabs.on('opened', onOpened);
    const busy = connection
      .session(sessionId)
      ?.send('Runtime.evaluate', { expression: `window.open('about:blank?late-start'); const end = Date.now() + ${busyMs}; while (Date.now() < end); 1`, userGesture: true });
    try {
      const popup = await waitFor(() => asked.find((entry) => tabs.get(entry.tabId)?.openerTabId === opener.tabId), 'the popup');
      // The popup did not run script within the usual probe's time, and still does not count as held.
      expect(await popup.quick).toBe(false);
      expect(await popup.wouldWait).toBe(false);
      await busy;
      expect(await tabs.close(popup.tabId)).toBe(true);
    } finally {
      tabs.off('opened', onOpened);
    }
    expect(await tabs.close(opener.tabId)).toBe(true);
  });

  it('closes a tab by its id and reports it closed', async () => {
    const tab = await openTab('about:blank?doomed');
    expect(await tabs.windowOf(tab.tabId)).toEqual(expect.any(Number));
    expect(await tabs.close(tab.tabId)).toBe(true);
    await waitFor(() => (closed.includes(tab.tabId) ? true : undefined), 'the close event');
    expect(tabs.get(tab.tabId)).toBeUndefined();
  });
});

describe('BrowserTabs.tabOfFrame', () => {
  /** Every frame id of a tab's page below its main frame, from the page's own frame tree. */
  async function childFrames(tab: BrowserTab): Promise<string[]> {
    const { sessionId } = await connection.send('Target.attachToTarget', { targetId: tab.pageTargetId ?? '', flatten: true });
    const page = connection.session(sessionId);
    const { frameTree } = (await page?.send('Page.getFrameTree')) ?? { frameTree: undefined };
    await connection.send('Target.detachFromTarget', { sessionId });
    const ids: string[] = [];
    const pending = [...(frameTree?.childFrames ?? [])];
    for (let frame = pending.pop(); frame !== undefined; frame = pending.pop()) {
      ids.push(frame.frame.id);
      pending.push(...(frame.childFrames ?? []));
    }
    return ids;
  }

  it("tells the tab of a page's frames at any depth, also those that were there before it attached", async () => {
    const html = `<iframe srcdoc="<iframe srcdoc='<p>deepest</p>'></iframe>"></iframe><iframe srcdoc="<p>beside</p>"></iframe>`;
    const tab = await openTab(`data:text/html,${encodeURIComponent(html)}`);
    const frames = await waitFor(async () => {
      const ids = await childFrames(tab);
      return ids.length === 3 ? ids : undefined;
    }, 'the three frames to load');
    expect(await tabs.tabOfFrame(tab.pageTargetId ?? '')).toBe(tab.tabId);
    for (const frameId of frames) {
      expect(await tabs.tabOfFrame(frameId)).toBe(tab.tabId);
    }
    // A second connection attaches after the frames were made: it finds them in the pages' frame trees.
    const version = (await (await fetch(`${chrome.browserUrl}/json/version`)).json()) as { webSocketDebuggerUrl: string };
    const late = new Connection(version.webSocketDebuggerUrl, await NodeWebSocketTransport.create(version.webSocketDebuggerUrl), 0, 30_000, false);
    try {
      const lateTabs = await BrowserTabs.watch(late);
      await waitFor(() => lateTabs.get(tab.tabId)?.pageTargetId ?? undefined, 'the late connection to see the tab');
      for (const frameId of frames) {
        expect(await lateTabs.tabOfFrame(frameId)).toBe(tab.tabId);
      }
      expect(await lateTabs.tabOfFrame('NOT-A-FRAME', 100)).toBeUndefined();
    } finally {
      late.dispose();
    }
  });
});

describe('ControlSurfaceGuard', () => {
  async function navigate(tab: BrowserTab, url: string): Promise<{ errorText?: string | undefined }> {
    const { sessionId } = await connection.send('Target.attachToTarget', { targetId: tab.pageTargetId ?? '', flatten: true });
    const page = connection.session(sessionId);
    const result = await page?.send('Page.navigate', { url });
    return { errorText: result?.errorText };
  }

  it('fails requests to the DevTools port and to its own files, whatever the host is spelled', async () => {
    const victim = await openTab('about:blank?victim');
    // A tab per attempt: the guard sends a tab whose blocked load left it on the refused URL back to about:blank,
    // and that reset would abort a next navigation in the same tab.
    const attempt = async (url: string): Promise<string | undefined> => (await navigate(await openTab('about:blank?attacker'), url)).errorText;
    expect(await attempt(`http://127.0.0.1:${chrome.port}/json/list`)).toBe('net::ERR_BLOCKED_BY_CLIENT');
    expect(await attempt(`http://localhost.:${chrome.port}/json/close/${victim.tabId}`)).toBe('net::ERR_BLOCKED_BY_CLIENT');
    expect(await attempt(`file://${home}/chrome/DevToolsActivePort`)).toBe('net::ERR_BLOCKED_BY_CLIENT');
    expect(tabs.get(victim.tabId)).toBeDefined();
    expect(refused.some((url) => url.includes('/json/list'))).toBe(true);
  });

  it("sends a tab that lands on one of the browser's own pages back to about:blank", async () => {
    const tab = await openTab('about:blank?curious');
    await navigate(tab, 'chrome://inspect');
    await waitFor(() => (tabs.get(tab.tabId)?.url === 'about:blank' ? true : undefined), 'the tab reset to about:blank');
  });
});
