import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindSession, html, pagesOf, startTestDaemon, untilCall, type TestDaemon } from '../helpers/daemonFixture.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';

let t: TestDaemon;

beforeAll(async () => {
  // A short TTL and reaper period so expiry happens through the real timer within the test.
  t = await startTestDaemon({ sessionTtlMs: 1500, reapIntervalMs: 250, workers: 1 });
});

afterAll(async () => {
  await t.stop();
});


const slow = (ms: number): Record<string, unknown> => ({ function: `async () => { await new Promise((r) => setTimeout(r, ${ms})); return 'slept ${ms}'; }`, waitForStableDom: false });

describe('phase 3: lifecycle', () => {
  it('closes a daemon-created page on expiry and leaves an attached page open', async () => {
    const control = await t.connect();
    const opened = await control.call('tabmux/tabs.open', { url: html('<p>human</p>', 'Human tab') });
    const created = await control.call('tabmux/session.create', { label: 'expiring' });
    const session = bindSession(await t.connect(), created.id);
    // A connection holds the session while its pages are set up (however long that takes on a loaded machine), then
    // lets it go: a session held by a live connection is never reaped, and its idle time starts when the hold ends.
    const holder = await t.connect();
    await holder.call('tabmux/session.bind', { session: created.id });
    await control.call('tabmux/session.attach', { session: created.id, pageId: opened.tab.pageId });
    const own = await control.call('tabmux/session.newPage', { session: created.id, url: html('<p>mine</p>', 'Mine') });
    expect(own.pages.map((page) => page.origin).sort()).toEqual(['attached', 'created']);
    holder.close();

    const ended = await waitFor(async () => {
      const { sessions } = await control.call('tabmux/session.list');
      return sessions.some((s) => s.id === created.id) ? undefined : true;
    }, 'the session to expire', 10_000);
    expect(ended).toBe(true);
    // The reaper drops the session first and closes its tabs after; on a loaded machine the list can be read between.
    await waitUntil(async () => !(await control.call('tabmux/tabs.list')).tabs.some((tab) => tab.pageId === own.pageId), "the expired session's tab to close");
    const tabs = (await control.call('tabmux/tabs.list')).tabs;
    const ids = tabs.map((tab) => tab.pageId);
    expect(ids).toContain(opened.tab.pageId);
    expect(ids).not.toContain(own.pageId);
    expect(tabs.find((tab) => tab.pageId === opened.tab.pageId)?.owner).toBeNull();

    // The id is remembered: the agent is told it expired, not that it never existed.
    await expect(session.client.call('tabmux/session.bind', { session: created.id })).rejects.toThrow(/expired/);
    const call = await control.call('tabmux/call', { session: created.id, name: 'list_pages', arguments: {} });
    expect(call.isError).toBe(true);
    expect(JSON.stringify(call.content)).toContain('expired');
  });

  it('never reaps a session while a client holds it', async () => {
    const held = await t.session('held');
    await held.text('new_page', { url: html('<p>held</p>') });
    await new Promise((resolve) => setTimeout(resolve, 2200));
    expect(pagesOf(await held.text('list_pages')).ids).toHaveLength(1);
  });

  it('closes daemon-created pages on session close and keeps the last-tab rule', async () => {
    const s = await t.session();
    const page = pagesOf(await s.text('new_page', { url: html('<p>x</p>') })).selected!;
    const closed = await s.client.call('tabmux/session.close', { session: s.id });
    expect(closed.closedPages).toEqual([page]);
    const again = await s.call('list_pages');
    expect(again.isError).toBe(true);
    expect(JSON.stringify(again.content)).toContain('was closed');
  });
});

describe('queue, fairness and status', () => {
  it('reports sessions, their pages and queued requests with wait times', async () => {
    const a = await t.session('slow-agent');
    const b = await t.session('waiting-agent');
    await Promise.all([a.text('new_page', { url: html('<p>a</p>', 'A page') }), b.text('new_page', { url: html('<p>b</p>', 'B page') })]);
    const control = await t.connect();
    // Long enough that the status below is read while it runs, however slow the machine; the waits are on what the
    // daemon reports, not on the clock.
    const running = a.call('evaluate_script', slow(4000));
    await untilCall(control, a.id, 'running');
    const waiting = b.call('evaluate_script', slow(10));
    await untilCall(control, b.id, 'queued');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const status = await control.call('tabmux/status');
    expect(status.chrome.pid).toBeGreaterThan(0);
    expect(status.upstream.pid).toBeGreaterThan(0);
    const sa = status.sessions.find((s) => s.id === a.id);
    expect(sa?.label).toBe('slow-agent');
    expect(sa?.pages[0]?.title).toBe('A page');
    expect(sa?.currentPageId).toBe(sa?.pages[0]?.pageId);
    expect(sa?.activity).toBe('busy');
    const runningEntry = status.queue.find((entry) => entry.sessionId === a.id);
    const queuedEntry = status.queue.find((entry) => entry.sessionId === b.id);
    expect(runningEntry?.state).toBe('running');
    expect(runningEntry?.tool).toBe('evaluate_script');
    expect(queuedEntry?.state).toBe('queued');
    expect(queuedEntry?.startedAt).toBeNull();
    expect(Date.now() - (queuedEntry?.enqueuedAt ?? Date.now())).toBeGreaterThanOrEqual(150);
    expect(status.workers[0]?.selectedPageId).not.toBeNull();
    // The daemon's own memory, as its process sees it.
    const memory = status.memory;
    expect(memory?.rssBytes).toBeGreaterThan(memory?.heapUsedBytes ?? Infinity);
    expect(memory?.heapUsedBytes).toBeGreaterThan(0);
    expect(memory?.youngGenerationBytes).toBeGreaterThan(0);
    expect(memory?.externalBytes).toBeGreaterThan(0);
    await Promise.all([running, waiting]);
    expect((await control.call('tabmux/status')).queue).toEqual([]);
  });

  it('serves sessions round-robin rather than first-come', async () => {
    const greedy = await t.session('greedy');
    const polite = await t.session('polite');
    await Promise.all([greedy.text('take_snapshot'), polite.text('take_snapshot')]);
    const order: string[] = [];
    const track = (name: string, promise: Promise<unknown>): Promise<unknown> => promise.then(() => order.push(name));
    const greedyCalls = [0, 1, 2, 3].map((i) => track(`g${i}`, greedy.call('evaluate_script', slow(1000))));
    // The polite call comes while the greedy session's first call runs and the other three wait, as the daemon reports.
    const control = await t.connect();
    await waitUntil(async () => (await control.call('tabmux/status')).queue.filter((entry) => entry.sessionId === greedy.id && entry.state === 'queued').length === 3, 'the greedy calls to queue');
    const politeCall = track('p', polite.call('evaluate_script', slow(10)));
    await Promise.all([...greedyCalls, politeCall]);
    // The polite session's one call runs right after the greedy session's current call, not after all four.
    expect(order.indexOf('p')).toBeLessThanOrEqual(1);
  });

  it('holds a paused session calls until it is resumed, without blocking others', async () => {
    const paused = await t.session('paused');
    const other = await t.session('other');
    await Promise.all([paused.text('take_snapshot'), other.text('take_snapshot')]);
    const control = await t.connect();
    await control.call('tabmux/session.pause', { session: paused.id });
    let done = false;
    const held = paused.call('evaluate_script', { function: '() => 7' }).then((result) => {
      done = true;
      return result;
    });
    await other.text('evaluate_script', { function: '() => 1' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(done).toBe(false);
    const status = await control.call('tabmux/status');
    expect(status.sessions.find((s) => s.id === paused.id)?.activity).toBe('paused');
    expect(status.queue.find((entry) => entry.sessionId === paused.id)?.state).toBe('queued');
    await control.call('tabmux/session.resume', { session: paused.id });
    expect(JSON.stringify((await held).content)).toContain('7');
  });

  it('cancels a queued call on request', async () => {
    const a = await t.session();
    const b = await t.session();
    await Promise.all([a.text('take_snapshot'), b.text('take_snapshot')]);
    const running = a.call('evaluate_script', slow(800));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const queued = b.call('evaluate_script', { function: '() => document.title = "should not run"' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const control = await t.connect();
    const entry = (await control.call('tabmux/status')).queue.find((e) => e.sessionId === b.id);
    expect(entry?.state).toBe('queued');
    expect(await control.call('tabmux/queue.cancel', { callId: entry!.callId })).toEqual({ cancelled: true });
    const result = await queued;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('cancelled');
    await running;
    expect(await b.text('evaluate_script', { function: '() => document.title' })).not.toContain('should not run');
  });
});
