import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { NodeWebSocketTransport } from 'puppeteer-core/internal/node/NodeWebSocketTransport.js';
import type { TabPicture } from '../../shared/model.js';
import type { BrowserTab } from '../../electron/core/browser/BrowserTab.js';
import { BrowserTabs } from '../../electron/core/browser/BrowserTabs.js';
import { ChromeProcess } from '../../electron/core/browser/ChromeProcess.js';
import { findChrome } from '../../electron/core/browser/findChrome.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { DEFAULT_PICTURE_LIMITS } from '../../electron/core/pictures/PictureLimits.js';
import { TabPictures } from '../../electron/core/pictures/TabPictures.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';

let chrome: ChromeProcess;
let connection: Connection;
let tabs: BrowserTabs;
let pictures: TabPictures;
let cleanup: () => void;

beforeAll(async () => {
  const testHome = makeTestHome();
  cleanup = testHome.cleanup;
  chrome = await ChromeProcess.launch({ executable: findChrome(undefined), userDataDir: `${testHome.home}/chrome`, headless: true, extraArgs: [], logger: Logger.silent() });
  const version = (await (await fetch(`${chrome.browserUrl}/json/version`)).json()) as { webSocketDebuggerUrl: string };
  connection = new Connection(version.webSocketDebuggerUrl, await NodeWebSocketTransport.create(version.webSocketDebuggerUrl), 0, 30_000, false);
  tabs = await BrowserTabs.watch(connection);
  pictures = new TabPictures({ logger: Logger.silent(), limits: { ...DEFAULT_PICTURE_LIMITS, thumb: { ...DEFAULT_PICTURE_LIMITS.thumb, fps: 20 } } });
  await pictures.useRun({ connection, tabs });
});

afterAll(async () => {
  await pictures.close();
  connection.dispose();
  await chrome.close();
  cleanup();
});

async function openTab(html: string, background: boolean): Promise<BrowserTab> {
  const { targetId } = await connection.send('Target.createTarget', { url: `data:text/html,${encodeURIComponent(html)}`, background });
  return waitFor(() => tabs.list().find((candidate) => candidate.pageTargetId === targetId), 'the new tab');
}

/** Runs a script in a tab on a session of its own, as an agent's tool would. */
async function evaluate(tab: BrowserTab, expression: string): Promise<unknown> {
  const { sessionId } = await connection.send('Target.attachToTarget', { targetId: tab.pageTargetId ?? '', flatten: true });
  try {
    const reply = await connection.session(sessionId)?.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    return reply?.result.value;
  } finally {
    await connection.send('Target.detachFromTarget', { sessionId });
  }
}

describe('live pictures', () => {
  it('sends frames of a background tab while it is watched, without bringing it to the front, and stops when nobody watches', async () => {
    const front = await openTab('<body style="background:rgb(255,0,0)">front</body>', false);
    const background = await openTab('<body style="background:rgb(0,0,255)">agent</body>', true);
    expect(await evaluate(background, 'document.visibilityState')).toBe('hidden');
    const seenByA: TabPicture[] = [];
    const watching = await pictures.watch('a', (picture) => seenByA.push(picture), [{ tabId: background.tabId, size: 'thumb' }]);
    expect(watching).toEqual([background.tabId]);
    const first = await waitFor(() => seenByA.at(0), 'a first frame of the background tab');
    expect(first.tabId).toBe(background.tabId);
    expect(first.width).toBeLessThanOrEqual(DEFAULT_PICTURE_LIMITS.thumb.maxWidth);
    expect(first.height).toBeLessThanOrEqual(DEFAULT_PICTURE_LIMITS.thumb.maxHeight);
    expect(first.metadata.deviceWidth).toBeGreaterThan(0);
    expect(Buffer.from(first.data, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    // The agent's page changes: a new frame comes.
    const before = seenByA.length;
    await evaluate(background, 'document.body.style.background = "rgb(0,255,0)"; 1');
    await waitUntil(() => seenByA.length > before, 'a frame after the page changed');
    // The front tab stays the one in front.
    expect(await evaluate(front, 'document.visibilityState')).toBe('visible');

    await pictures.unwatch('a');
    expect(pictures.captured).toEqual([]);
    // Once nobody watches, the tab is a hidden background tab again (the screencast's session is gone).
    await waitUntil(async () => (await evaluate(background, 'document.visibilityState')) === 'hidden', 'the tab hidden again');
    const afterUnwatch = seenByA.length;
    await evaluate(background, 'document.body.style.background = "rgb(255,255,0)"; 1');
    // Another watcher gets the change; the one that left does not.
    const seenByB: TabPicture[] = [];
    await pictures.watch('b', (picture) => seenByB.push(picture), [{ tabId: background.tabId, size: 'thumb' }]);
    await waitFor(() => seenByB.at(0), 'a frame for the new watcher');
    expect(seenByA.length).toBe(afterUnwatch);
    await pictures.unwatch('b');
  });

  it('sends a person’s clicks and typing to a watched tab, mapped to the page', async () => {
    const tab = await openTab(
      `<body style="margin:0"><input id="field" style="position:absolute;left:0;top:0;width:200px;height:40px">` +
        `<script>window.clicks=[];document.addEventListener('click',e=>clicks.push([e.clientX,e.clientY]))</script></body>`,
      true,
    );
    await expect(pictures.input('viewer', tab.tabId, { kind: 'text', text: 'x' })).rejects.toMatchObject({ code: 'unknown_page' });
    const seen: TabPicture[] = [];
    await pictures.watch('viewer', (picture) => seen.push(picture), [{ tabId: tab.tabId, size: 'live' }]);
    // A person clicks on what they see: the page has loaded and painted a frame.
    await waitUntil(async () => (await evaluate(tab, 'document.readyState === "complete" && Array.isArray(window.clicks)')) === true, 'the page loaded');
    await waitFor(() => seen.at(0), 'a first frame of the tab');
    for (const type of ['mousePressed', 'mouseReleased'] as const) {
      await pictures.input('viewer', tab.tabId, { kind: 'mouse', type, x: 50, y: 20, button: 'left', clickCount: 1, modifiers: 0 });
    }
    await pictures.input('viewer', tab.tabId, { kind: 'text', text: 'héllo' });
    await pictures.input('viewer', tab.tabId, { kind: 'key', type: 'keyDown', key: 'Backspace', code: 'Backspace', keyCode: 8, modifiers: 0 });
    await pictures.input('viewer', tab.tabId, { kind: 'key', type: 'keyUp', key: 'Backspace', code: 'Backspace', keyCode: 8, modifiers: 0 });
    expect(await evaluate(tab, 'JSON.stringify(window.clicks)')).toBe('[[50,20]]');
    expect(await evaluate(tab, 'document.getElementById("field").value')).toBe('héll');
    await pictures.unwatch('viewer');
  });

  it("does not wait on a tab whose page never yields or has crashed: every other tab's pictures go on", async () => {
    const spinning = await openTab('<body>busy<script>setTimeout(() => { for (;;) {} }, 50);</script></body>', true);
    const crashed = await openTab('<body>gone</body>', true);
    const { sessionId } = await connection.send('Target.attachToTarget', { targetId: crashed.pageTargetId ?? '', flatten: true });
    // The crashed page never answers this.
    void connection.session(sessionId)?.send('Page.crash').catch(() => undefined);
    await waitUntil(() => tabs.get(crashed.tabId)?.crashed?.status === 'crashed', 'the browser to report the crash');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const hostile = await pictures.watch('hostile', () => undefined, [
      { tabId: spinning.tabId, size: 'thumb' },
      { tabId: crashed.tabId, size: 'thumb' },
    ]);
    expect(hostile.sort()).toEqual([spinning.tabId, crashed.tabId].sort());
    const calm = await openTab('<body style="background:rgb(0,128,0)">calm</body>', true);
    const seen: TabPicture[] = [];
    expect(await pictures.watch('viewer', (picture) => seen.push(picture), [{ tabId: calm.tabId, size: 'thumb' }])).toEqual([calm.tabId]);
    await waitFor(() => seen.at(0), 'a frame of the calm tab');
    expect((await pictures.still(calm.tabId))?.tabId).toBe(calm.tabId);
    await pictures.unwatch('viewer');
    await pictures.unwatch('hostile');
    expect(pictures.captured).toEqual([]);
    for (const tab of [spinning, crashed, calm]) {
      await connection.send('Target.closeTarget', { targetId: tab.tabId });
    }
  });
});
