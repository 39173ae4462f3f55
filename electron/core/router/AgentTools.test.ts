import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import { createUrlPolicy } from '../browser/urlPolicy.js';
import { AgentTools } from './AgentTools.js';
import type { Session } from './Session.js';
import { fakeParts } from './testing/fakeParts.js';

const policy = createUrlPolicy({ debuggingPort: 9222, protectedRoots: [] });

function setup(options: Parameters<typeof fakeParts>[0] = {}) {
  const parts = fakeParts(options);
  const changed: string[] = [];
  const agents = new AgentTools({ ...parts, urlPolicy: () => policy, catalog: () => parts.catalog, timeoutFor: () => 5_000, changed: (session: Session) => changed.push(session.id) });
  const call = (session: Session, name: string, args: Record<string, unknown> = {}) => agents.call(session.id, name, args);
  return { ...parts, agents, call, changed };
}

/** The uid tokens in a result, in order. */
function tokens(text: string): string[] {
  return [...text.matchAll(/uid=(u:\S+)/g)].map((match) => match[1] ?? '');
}

describe('AgentTools', () => {
  it('opens a background page on the first page-scoped call and sets pageId itself', async () => {
    const { createSession, call, upstreams, changed } = setup();
    const session = createSession();
    const result = await call(session, 'take_snapshot');
    const names = upstreams[0]?.calls.map((c) => c.name);
    expect(names).toContain('new_page');
    const snapshot = upstreams[0]?.calls.find((c) => c.name === 'take_snapshot');
    expect(snapshot?.args).toEqual({ pageId: session.currentPageId });
    expect(tokens(textOf(result))).toEqual([`u:${session.short}:1:1_0`, `u:${session.short}:1:1_1`]);
    expect(changed).toContain(session.id);
  });

  it('refuses a pageId on page tools and unknown tools', async () => {
    const { createSession, call } = setup();
    const session = createSession();
    await expect(call(session, 'take_snapshot', { pageId: 1 })).rejects.toMatchObject({ code: 'invalid_params' });
    await expect(call(session, 'get_tab_id', {})).rejects.toMatchObject({ code: 'unknown_tool' });
    await expect(call(session, 'no_such_tool')).rejects.toMatchObject({ code: 'unknown_tool' });
  });

  it('translates its own tokens back and refuses another session\'s before anything reaches upstream', async () => {
    const { createSession, call, upstreams } = setup();
    const mine = createSession();
    const other = createSession();
    const [token] = tokens(textOf(await call(mine, 'take_snapshot')));
    await call(mine, 'click', { uid: token });
    expect(upstreams[0]?.calls.at(-1)).toEqual({ name: 'click', args: { uid: '1_0', pageId: mine.currentPageId } });
    const before = upstreams[0]?.calls.length;
    await expect(call(other, 'click', { uid: token })).rejects.toMatchObject({ code: 'foreign_token' });
    // The other session has no page yet, and the refused call did not open one.
    expect(upstreams[0]?.calls.length).toBe(before);
    expect(other.pages.size).toBe(0);
  });

  it('makes old tokens stale after a navigation', async () => {
    const { createSession, call } = setup();
    const session = createSession();
    const [token] = tokens(textOf(await call(session, 'take_snapshot')));
    await call(session, 'navigate_page', { url: 'https://example.com/' });
    await expect(call(session, 'click', { uid: token })).rejects.toMatchObject({ code: 'stale_token' });
  });

  it('lists only the session\'s own pages, and unowned tabs on request', async () => {
    const { createSession, call } = setup({ urls: ['https://human.example/'] });
    const mine = createSession();
    const other = createSession();
    await call(mine, 'new_page', { url: 'https://mine.example/' });
    await call(other, 'new_page', { url: 'https://other.example/' });
    const own = textOf(await call(mine, 'list_pages'));
    expect(own).toBe(`## Pages\n${mine.currentPageId}: https://mine.example/ [selected]`);
    const all = textOf(await call(mine, 'list_pages', { includeUnowned: true }));
    expect(all).toBe(`## Pages\n1: https://human.example/ (unowned)\n${mine.currentPageId}: https://mine.example/ [selected]`);
  });

  it('switches and closes only the session\'s own pages', async () => {
    const { createSession, call } = setup();
    const mine = createSession();
    const other = createSession();
    await call(mine, 'new_page', { url: 'https://a.example/' });
    const first = mine.currentPageId;
    await call(mine, 'new_page', { url: 'https://b.example/' });
    await call(other, 'new_page', { url: 'https://c.example/' });
    await call(mine, 'select_page', { pageId: first });
    expect(mine.currentPageId).toBe(first);
    await expect(call(mine, 'select_page', { pageId: other.currentPageId })).rejects.toMatchObject({ code: 'page_conflict' });
    await expect(call(mine, 'close_page', { pageId: other.currentPageId })).rejects.toMatchObject({ code: 'page_conflict' });
    await expect(call(mine, 'close_page', { pageId: 'one' })).rejects.toMatchObject({ code: 'invalid_params' });
    await call(mine, 'close_page', { pageId: first });
    expect(mine.pages.has(first ?? -1)).toBe(false);
    expect(mine.currentPage?.url).toBe('https://b.example/');
  });

  it('learns the tab id of every page it gives a session', async () => {
    const { createSession, call, browser } = setup();
    const session = createSession();
    await call(session, 'new_page', { url: 'https://a.example/' });
    expect(session.currentPage?.tabId).toBe(browser.tabs.at(-1)?.tabId);
  });

  it('puts pending notes in front of the next result, once', async () => {
    const { createSession, call } = setup();
    const session = createSession();
    session.notes.push('Note: something happened.');
    expect(textOf(await call(session, 'list_extensions'))).toBe('Note: something happened.\nNo extensions installed.');
    expect(textOf(await call(session, 'list_extensions'))).toBe('No extensions installed.');
  });

  it("saves a snapshot to the session's folder with its tokens, and refuses paths outside it", async () => {
    const { createSession, call, filesDir, upstreams } = setup();
    const session = createSession();
    const result = await call(session, 'take_snapshot', { filePath: 'snap.md' });
    const path = join(filesDir, session.id, 'snap.txt');
    expect(textOf(result)).toBe(`Saved snapshot to ${path}.`);
    const saved = readFileSync(path, 'utf8');
    expect(tokens(saved)).toEqual([`u:${session.short}:1:1_0`, `u:${session.short}:1:1_1`]);
    expect(upstreams[0]?.calls.find((c) => c.name === 'take_snapshot')?.args).not.toHaveProperty('filePath');
    await expect(call(session, 'take_snapshot', { filePath: '../elsewhere.txt' })).rejects.toMatchObject({ code: 'path_denied' });
    const clicked = await call(session, 'click', { uid: tokens(saved)[1] });
    expect(clicked.isError).toBeUndefined();
  });

  it("refuses agents' navigations to the browser's control surface before upstream sees them", async () => {
    const { createSession, call, upstreams } = setup();
    const session = createSession();
    await call(session, 'take_snapshot');
    for (const [tool, url] of [['navigate_page', 'http://127.0.0.1:9222/json/list'], ['new_page', 'chrome://inspect'], ['navigate_page', 'devtools://devtools/bundled/inspector.html']] as const) {
      await expect(call(session, tool, { url })).rejects.toMatchObject({ code: 'url_denied' });
    }
    expect(upstreams[0]?.calls.some((c) => typeof c.args['url'] === 'string' && c.args['url'].includes('9222'))).toBe(false);
  });
});

describe('AgentTools and rendered frames', () => {
  it('brings the session\'s tab to the front before a screenshot, in the same queue slot', async () => {
    const { createSession, call, upstreams } = setup();
    const session = createSession();
    await call(session, 'take_screenshot');
    const calls = upstreams[0]?.calls ?? [];
    const shot = calls.findIndex((c) => c.name === 'take_screenshot');
    expect(calls[shot - 1]).toEqual({ name: 'select_page', args: { pageId: session.currentPageId, bringToFront: true } });
  });
});
