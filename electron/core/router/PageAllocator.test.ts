import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { textOf } from '../../../shared/toolResult.js';
import { PageAllocator } from './PageAllocator.js';
import { Session } from './Session.js';
import { FakeBrowser, FakeUpstream, fakeWorker } from './testing/FakeUpstream.js';

function setup() {
  const browser = new FakeBrowser(['about:blank']);
  const upstream = new FakeUpstream(browser);
  const worker = fakeWorker(upstream);
  const session = new Session('sess-00000000abcd1234', 'abcd1234', null, 0, Date.now());
  const sessions = new Map([[session.id, session]]);
  const pages = new PageAllocator((id) => sessions.get(id));
  return { browser, upstream, worker, session, pages };
}

describe('PageAllocator', () => {
  it('opens a page for a session, in the background by default, and makes it current', async () => {
    const { upstream, worker, session, pages, browser } = setup();
    const { result, page } = await pages.open(session, worker, { url: 'https://example.com/', background: true });
    expect(result.isError).toBeUndefined();
    expect(page?.url).toBe('https://example.com/');
    expect(session.currentPage).toBe(page);
    expect(page?.origin).toBe('created');
    expect(worker.owners.get(page?.pageId ?? -1)).toBe(session.id);
    expect(upstream.calls.find((call) => call.name === 'new_page')?.args).toEqual({ url: 'https://example.com/', background: true });
    expect(browser.tabs).toHaveLength(2);
  });

  it('hands an agent\'s own new_page arguments to upstream, its background included', async () => {
    const { upstream, worker, session, pages } = setup();
    await pages.open(session, worker, { url: 'about:blank', background: true, agentArgs: { url: 'ignored', background: false, timeout: 5000 } });
    expect(upstream.calls.find((call) => call.name === 'new_page')?.args).toEqual({ url: 'about:blank', background: false, timeout: 5000 });
  });

  it("never hands an isolatedContext to upstream, whose named contexts are one worker's and outlive sessions", async () => {
    const { upstream, worker, session, pages } = setup();
    await expect(pages.open(session, worker, { url: 'about:blank', background: true, agentArgs: { isolatedContext: 'ctx' } })).rejects.toMatchObject({ code: 'browser_unavailable' });
    await expect(pages.open(session, worker, { url: 'about:blank', background: true, agentArgs: { isolatedContext: 42 } })).rejects.toMatchObject({ code: 'invalid_params' });
    expect(upstream.calls.some((call) => call.name === 'new_page')).toBe(false);
    expect(session.contexts.size).toBe(0);
  });

  it('closes the tab a failed navigation leaves behind and gives the session nothing', async () => {
    const { upstream, worker, session, pages, browser } = setup();
    upstream.failingUrls.add('http://127.0.0.1:9/');
    const { result, page } = await pages.open(session, worker, { url: 'http://127.0.0.1:9/', background: true });
    expect(result.isError).toBe(true);
    expect(page).toBeUndefined();
    expect(session.pages.size).toBe(0);
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['about:blank']);
  });

  it('opens the current page once, lazily', async () => {
    const { upstream, worker, session, pages } = setup();
    const first = await pages.current(session, worker);
    const second = await pages.current(session, worker);
    expect(second).toBe(first);
    expect(first.url).toBe('about:blank');
    expect(upstream.calls.filter((call) => call.name === 'new_page')).toHaveLength(1);
  });

  it('says why a session could not get a page', async () => {
    const { upstream, worker, session, pages } = setup();
    upstream.failingUrls.add('about:blank');
    await expect(pages.current(session, worker)).rejects.toMatchObject({ code: 'upstream_failed' });
  });

  it('opens an unowned tab in the foreground for a human', async () => {
    const { upstream, worker, pages } = setup();
    const tab = await pages.openUnowned(worker, 'https://login.example/');
    expect(tab).toMatchObject({ url: 'https://login.example/', owner: null, origin: null, upstreamSelected: true, worker: 0 });
    expect(worker.owners.size).toBe(0);
    expect(upstream.calls.find((call) => call.name === 'new_page')?.args).toEqual({ url: 'https://login.example/', background: false });
    upstream.failingUrls.add('http://127.0.0.1:9/');
    const failed = await pages.openUnowned(worker, 'http://127.0.0.1:9/').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TabmuxError);
    expect(failed).toMatchObject({ code: 'upstream_failed' });
  });

  it('closes a session page, but keeps it when upstream refuses to close the last tab', async () => {
    const { worker, session, pages, browser } = setup();
    const { page } = await pages.open(session, worker, { url: 'https://a.example/', background: true });
    const pageId = page?.pageId ?? -1;
    await pages.close(session, worker, pageId);
    expect(session.pages.has(pageId)).toBe(false);
    expect(worker.owners.has(pageId)).toBe(false);

    // Only the session's own tab left: upstream keeps it open and says so without an error flag.
    const { page: last } = await pages.open(session, worker, { url: 'https://b.example/', background: true });
    browser.remove(browser.tabs[0]?.tabId ?? '');
    const result = await pages.close(session, worker, last?.pageId ?? -1);
    expect(textOf(result)).toMatch(/^The last open page cannot be closed/);
    expect(session.currentPage).toBe(last);
  });

  it('closes all pages of an ended session and tells which went', async () => {
    const { worker, session, pages, browser } = setup();
    const a = await pages.open(session, worker, { url: 'https://a.example/', background: true });
    const b = await pages.open(session, worker, { url: 'https://b.example/', background: true });
    const closed: number[] = [];
    await pages.closeAll(worker, [a.page?.pageId ?? -1, b.page?.pageId ?? -1, 99], closed);
    expect(closed).toEqual([a.page?.pageId, b.page?.pageId]);
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['about:blank']);
  });
});
