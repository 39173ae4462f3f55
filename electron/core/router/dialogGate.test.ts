import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import { RESPONDS_WITHIN_MS } from './heldTabs.js';
import { fakeRouter } from './testing/fakeRouter.js';

async function setup() {
  const { browser, upstreams, router } = await fakeRouter({ settings: { workers: 1 }, watchTabs: true });
  const first = router.createSession('first');
  const second = router.createSession('second');
  await router.callTool(first.id, 'new_page', { url: 'https://site.example/opener' });
  await router.callTool(second.id, 'new_page', { url: 'https://other.example/' });
  const opener = browser.tabs.find((tab) => tab.url === 'https://site.example/opener');
  const upstream = upstreams[0];
  if (!opener || !upstream) {
    throw new Error('no opener tab');
  }
  return { browser, upstream, router, first, second, opener };
}

describe('dialogs and page calls', () => {
  it('refuses a page’s calls while a popup it opened shows a dialog, answers that dialog with handle_dialog, and leaves a neighbour alone', async () => {
    const { browser, upstream, router, first, second, opener } = await setup();
    const popup = browser.open('https://site.example/popup', 'Popup', opener.tabId);
    browser.showDialog(popup.tabId);

    const listed = textOf(await router.callTool(first.id, 'list_pages', {}));
    expect(listed).toContain('(https://site.example/popup) shows an alert dialog and waits for an answer');
    const refused = router.callTool(first.id, 'take_snapshot', {});
    await expect(refused).rejects.toMatchObject({ code: 'dialog_open' });
    await expect(refused).rejects.toThrow('Call handle_dialog');
    expect(textOf(await router.callTool(second.id, 'take_snapshot', {}))).toContain('Latest page snapshot');
    expect(upstream.hung).toEqual([]);

    const answered = textOf(await router.callTool(first.id, 'handle_dialog', { action: 'dismiss' }));
    expect(answered).toContain('Successfully dismissed an alert dialog of a page one of your pages opened');
    expect(popup.dialog).toBeNull();
    expect(upstream.calls.map((call) => call.name)).not.toContain('handle_dialog');

    expect(textOf(await router.callTool(first.id, 'list_pages', {}))).toContain('was opened by one of your pages and is now yours');
    expect(router.sessionInfo(first.id).pages.map((page) => page.url)).toContain('https://site.example/popup');
    expect(textOf(await router.callTool(first.id, 'take_snapshot', {}))).toContain('Latest page snapshot');
  });

  it('leaves the dialog of a page upstream followed before it opened to upstream', async () => {
    const { browser, upstream, router, first, opener } = await setup();
    browser.showDialog(opener.tabId, 'confirm');
    const pageId = router.sessionPage(first.id).pageId;
    expect(textOf(await router.callTool(first.id, 'handle_dialog', { action: 'accept' }))).toContain('Successfully accepted the dialog');
    expect(upstream.calls.filter((call) => call.name === 'handle_dialog').map((call) => call.args['pageId'])).toEqual([pageId]);
    expect(opener.dialog).toBeNull();
  });

  it('lets a page’s calls through when its relative’s dialog does not block it', async () => {
    const { browser, router, first, opener } = await setup();
    const popup = browser.open('https://elsewhere.example/', 'Popup', opener.tabId);
    browser.showDialog(popup.tabId);
    // A cross-site popup runs in a renderer of its own: the opener still runs script.
    browser.responds = () => Promise.resolve(true);
    expect(textOf(await router.callTool(first.id, 'take_snapshot', {}))).toContain('Latest page snapshot');
  });

  it('tells of a popup whose dialog opened unseen, refuses its opener’s calls, and closes it on handle_dialog', async () => {
    const { browser, upstream, router, first, second, opener } = await setup();
    const popup = browser.open('https://site.example/unseen', 'Popup', opener.tabId);
    browser.showUnseenDialog(popup.tabId);

    const listed = textOf(await router.callTool(first.id, 'list_pages', {}));
    expect(listed).toContain('(https://site.example/unseen) does not respond');
    expect(listed).toContain('Call handle_dialog to close that page');
    // Told once.
    expect(textOf(await router.callTool(first.id, 'list_pages', {}))).not.toContain('does not respond');
    const refused = router.callTool(first.id, 'take_snapshot', {});
    await expect(refused).rejects.toMatchObject({ code: 'dialog_open' });
    await expect(refused).rejects.toThrow('Call handle_dialog to close that page');
    expect(textOf(await router.callTool(second.id, 'take_snapshot', {}))).toContain('Latest page snapshot');

    const closed = textOf(await router.callTool(first.id, 'handle_dialog', { action: 'accept' }));
    expect(closed).toContain('A page one of your pages opened (https://site.example/unseen) did not respond');
    expect(closed).toContain('it was closed instead');
    expect(browser.tabs.map((tab) => tab.tabId)).not.toContain(popup.tabId);
    expect(upstream.calls.map((call) => call.name)).not.toContain('handle_dialog');
    expect(upstream.hung).toEqual([]);
    expect(textOf(await router.callTool(first.id, 'take_snapshot', {}))).toContain('Latest page snapshot');
  });

  it('leaves alone a popup that has not answered the daemon yet but runs script', async () => {
    const { browser, router, first, opener } = await setup();
    const popup = browser.open('https://site.example/slow', 'Popup', opener.tabId);
    browser.showUnseenDialog(popup.tabId);
    // Only the daemon's connection has not heard from it yet: the page itself runs.
    browser.responds = () => Promise.resolve(true);
    expect(textOf(await router.callTool(first.id, 'list_pages', {}))).not.toContain('does not respond');
    expect(textOf(await router.callTool(first.id, 'take_snapshot', {}))).toContain('Latest page snapshot');
    await router.callTool(first.id, 'handle_dialog', { action: 'accept' });
    expect(browser.tabs.map((tab) => tab.tabId)).toContain(popup.tabId);
  });

  it('neither refuses, tells of nor closes a popup that is still starting, however long past the usual probe it takes', async () => {
    const { browser, router, first, opener } = await setup();
    const popup = browser.open('https://site.example/starting', 'Popup', opener.tabId);
    // It shares its opener's renderer, which it keeps busy while it starts, as pages do on a loaded machine.
    browser.markFresh(popup.tabId, 2 * RESPONDS_WITHIN_MS);
    const snapshot = textOf(await router.callTool(first.id, 'take_snapshot', {}));
    expect(snapshot).toContain('Latest page snapshot');
    expect(snapshot).not.toContain('does not respond');
    // Until it has answered the daemon's connection it stays a popup-to-be, which the next calls look at again.
    expect(router.sessionInfo(first.id).pages.map((page) => page.url)).not.toContain(popup.url);
    browser.markFresh(popup.tabId, 2 * RESPONDS_WITHIN_MS);
    expect(textOf(await router.callTool(first.id, 'list_pages', {}))).not.toContain('does not respond');
    browser.markFresh(popup.tabId, 2 * RESPONDS_WITHIN_MS);
    await router.callTool(first.id, 'handle_dialog', { action: 'accept' }).catch(() => undefined);
    expect(browser.tabs.map((tab) => tab.tabId)).toContain(popup.tabId);
  });
});
