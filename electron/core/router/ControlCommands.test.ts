import { describe, expect, it } from 'vitest';
import type { TabInfo } from '../../../shared/model.js';
import { ControlCommands } from './ControlCommands.js';
import { FIRST_WINDOW } from './testing/FakeUpstream.js';
import { fakeParts } from './testing/fakeParts.js';

function setup(options: Parameters<typeof fakeParts>[0] = {}) {
  const parts = fakeParts({ urls: ['https://human.example/'], ...options });
  const changed: string[] = [];
  const listed: TabInfo[][] = [];
  const control = new ControlCommands({ ...parts, changed: (id) => changed.push(id), tabsListed: (tabs) => listed.push(tabs) });
  return { ...parts, control, changed, listed };
}

describe('ControlCommands', () => {
  it('gives an unowned tab to a session, and refuses one another session holds', async () => {
    const { control, createSession, changed } = setup();
    const a = createSession();
    const b = createSession();
    const result = await control.attach(a.id, 1);
    expect(result).toMatchObject({ session: a.id, pageId: 1, url: 'https://human.example/' });
    expect(result.pages).toEqual([{ pageId: 1, url: 'https://human.example/', title: '', origin: 'attached', current: true }]);
    expect(changed).toContain(a.id);
    await expect(control.attach(b.id, 1)).rejects.toMatchObject({ code: 'page_conflict' });
    await expect(control.attach(b.id, 42)).rejects.toMatchObject({ code: 'unknown_page' });
  });

  it('finds a tab by its Chrome tab id for a session on another worker', async () => {
    const { control, createSession, upstreams, browser } = setup({ workers: 2 });
    createSession();
    const onSecond = createSession();
    expect(onSecond.worker).toBe(1);
    // Worker 0 uses up an id on a tab that goes away, so the two workers number later tabs differently.
    const temporary = await control.openTab('https://temporary.example/');
    browser.remove(browser.tabs.find((tab) => tab.url === temporary.url)?.tabId ?? '');
    await control.newPage(onSecond.id, 'https://second.example/', true);
    const third = await control.openTab('https://third.example/');
    expect(third.pageId).toBe(4);
    const result = await control.attach(onSecond.id, third.pageId);
    expect(result.pages.find((page) => page.origin === 'attached')).toMatchObject({ pageId: 3, url: 'https://third.example/', current: true });
    expect(upstreams[0]?.calls.some((call) => call.name === 'get_tab_id')).toBe(true);
    // `tabmux pages` shows every tab with one id (the first worker's), and the id its owner uses beside it.
    const listed = await control.tabs();
    expect(listed.find((tab) => tab.url === 'https://third.example/')).toMatchObject({ pageId: 4, worker: 0, owner: onSecond.id, ownerPageId: 3 });
    expect(new Set(listed.map((tab) => tab.pageId)).size).toBe(listed.length);
    await expect(control.attach(onSecond.id, 1, 7)).rejects.toMatchObject({ code: 'unknown_page' });
  });

  it('opens, selects and releases a session\'s pages', async () => {
    const { control, createSession, browser } = setup();
    const session = createSession();
    const first = await control.newPage(session.id, 'https://a.example/', true);
    const second = await control.newPage(session.id, 'https://b.example/', false);
    expect(second.pages).toHaveLength(2);
    expect(session.currentPage?.tabId).toBe(browser.tabs.at(-1)?.tabId);
    const selected = await control.select(session.id, first.pageId ?? -1, true);
    expect(selected.pageId).toBe(first.pageId);
    const released = await control.release(session.id);
    expect(released.pages.map((page) => page.url)).toEqual(['https://b.example/']);
    // Released tabs stay open for whoever wants them.
    expect(browser.tabs.map((tab) => tab.url)).toContain('https://a.example/');
    await expect(control.release(session.id, 99)).rejects.toMatchObject({ code: 'unknown_page' });
    await expect(control.select(session.id, 1, false)).rejects.toMatchObject({ code: 'unknown_page' });
  });

  it('says why a session\'s new page failed', async () => {
    const { control, createSession, upstreams, pool } = setup();
    const session = createSession();
    await pool.first.ensureStarted();
    upstreams[0]?.failingUrls.add('http://127.0.0.1:9/');
    await expect(control.newPage(session.id, 'http://127.0.0.1:9/', true)).rejects.toMatchObject({ code: 'upstream_failed' });
    expect(session.pages.size).toBe(0);
  });

  it('lists every tab with its owner as the first worker sees it, and opens unowned tabs', async () => {
    const { control, createSession, listed } = setup();
    const session = createSession('agent');
    await control.newPage(session.id, 'https://mine.example/', true);
    const opened = await control.openTab('https://login.example/');
    expect(opened).toMatchObject({ owner: null, url: 'https://login.example/' });
    const tabs = await control.tabs();
    expect(tabs.map((tab) => [tab.url, tab.owner, tab.origin])).toEqual([
      ['https://human.example/', null, null],
      ['https://mine.example/', session.id, 'created'],
      ['https://login.example/', null, null],
    ]);
    expect(listed).toEqual([tabs]);
  });

  it('tells the window of every tab, so tabs can be grouped by window', async () => {
    const { control, createSession } = setup({ isolation: 'window' });
    const session = createSession();
    await control.newPage(session.id, 'https://mine.example/', true);
    await control.newPage(session.id, 'https://mine2.example/', true);
    const tabs = await control.tabs();
    expect(tabs.map((tab) => [tab.url, tab.windowId])).toEqual([
      ['https://human.example/', FIRST_WINDOW],
      ['https://mine.example/', FIRST_WINDOW + 1],
      ['https://mine2.example/', FIRST_WINDOW + 1],
    ]);
  });

  it('shows a session\'s page and refuses a session that is gone', async () => {
    const { control, createSession, sessions } = setup();
    const session = createSession();
    expect(control.page(session.id)).toEqual({ session: session.id, pageId: null, url: null, pages: [] });
    sessions.remove(session.id, 'closed');
    expect(() => control.page(session.id)).toThrow(/was closed/);
    await expect(control.newPage(session.id, 'about:blank', true)).rejects.toMatchObject({ code: 'session_closed' });
  });
});
