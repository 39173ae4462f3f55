import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { waitUntil } from '../helpers/waitFor.js';
import { html, pagesOf, startTestDaemon, uidOf, untilCall, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ workers: 3, workerIdleMs: 1000, reapIntervalMs: 250 });
});

afterAll(async () => {
  await t.stop();
});

const FORM = html('<input aria-label="Name"><button onclick="document.title = document.querySelector(\'input\').value">Go</button>', 'Pool form');
const slow = (ms: number): Record<string, unknown> => ({ function: `async () => { await new Promise((r) => setTimeout(r, ${ms})); return 'slept'; }`, waitForStableDom: false });

async function workerOf(s: BoundSession): Promise<number> {
  const status = await s.client.call('tabmux/status');
  return status.sessions.find((x) => x.id === s.id)!.worker;
}

describe('worker pool', () => {
  let a: BoundSession;
  let b: BoundSession;
  let c: BoundSession;

  it('pins sessions to the least loaded worker and keeps each one to its own tabs and tokens', async () => {
    a = await t.session('pool-a');
    b = await t.session('pool-b');
    c = await t.session('pool-c');
    expect(new Set([await workerOf(a), await workerOf(b), await workerOf(c)])).toEqual(new Set([0, 1, 2]));

    const pages = await Promise.all([a, b, c].map((s) => s.text('new_page', { url: FORM })));
    const snapshots = await Promise.all([a, b, c].map((s) => s.text('take_snapshot')));
    await Promise.all([a, b, c].map((s, i) => s.text('fill', { uid: uidOf(snapshots[i]!, 'textbox', 'Name'), value: `v${i}` })));
    await Promise.all([a, b, c].map((s, i) => s.text('click', { uid: uidOf(snapshots[i]!, 'button', 'Go') })));
    const titles = await Promise.all([a, b, c].map((s) => s.text('evaluate_script', { function: '() => document.title' })));
    titles.forEach((title, i) => expect(title).toContain(`v${i}`));

    // Each list holds exactly the session's one page, even with includeUnowned: other workers' tabs are not "unowned".
    for (const [i, s] of [a, b, c].entries()) {
      const own = pagesOf(pages[i]!).selected;
      const listed = await s.text('list_pages', { includeUnowned: true });
      // Ids change only when the router remaps a session's pages (a move, a replaced worker), and it then says so.
      const notes = [pages[i]!, snapshots[i]!, titles[i]!, listed].flatMap((text) => text.split('\n').filter((line) => line.startsWith('Note:')));
      expect(pagesOf(listed).selected, `the page id of session ${i} changed; the router's notes: ${notes.join(' | ') || 'none'}`).toBe(own);
      // The one data: page listed is this session's; other sessions' tabs never show up as unowned.
      expect(listed.split('Pool%20form')).toHaveLength(2);
      expect(listed.split('\n').filter((line) => /^\d+: /.test(line) && !line.endsWith('(unowned)'))).toHaveLength(1);
    }

    // Tokens from a session on another worker are refused (raw uids collide across workers).
    const foreign = await b.call('click', { uid: uidOf(snapshots[0]!, 'button', 'Go') });
    expect(foreign.isError).toBe(true);
    expect(JSON.stringify(foreign.content)).toContain('belongs to another session');
  });

  it('shows every tab once with its owner, whichever worker owns it', async () => {
    const { tabs } = await a.client.call('tabmux/tabs.list');
    const owners = tabs.map((tab) => tab.owner).filter((owner): owner is string => owner !== null);
    expect(owners.sort()).toEqual([a.id, b.id, c.id].sort());
    // One id per tab (the first worker's), and beside it the id its owner uses on its own worker.
    expect(new Set(tabs.map((tab) => tab.pageId)).size).toBe(tabs.length);
    for (const s of [a, b, c]) {
      const tab = tabs.find((candidate) => candidate.owner === s.id)!;
      expect(tab.worker).toBe(0);
      expect((await s.client.call('tabmux/session.page', { session: s.id })).pageId).toBe(tab.ownerPageId);
    }
  });

  it('runs calls of sessions on different workers at the same time', async () => {
    // Calls one worker ran in turn would never be seen running together, however long the wait.
    const running = [a.call('evaluate_script', slow(4000)), b.call('evaluate_script', slow(4000))];
    const states = async (): Promise<string[]> =>
      (await c.client.call('tabmux/status')).queue.filter((entry) => entry.sessionId === a.id || entry.sessionId === b.id).map((entry) => entry.state);
    await waitUntil(async () => (await states()).join() === 'running,running', 'both calls to run at once');
    const status = await c.client.call('tabmux/status');
    expect(status.workers.filter((worker) => worker.inFlight === 1)).toHaveLength(2);
    await Promise.all(running);
  });

  it('attaches a tab listed by tabmux pages to a session on another worker', async () => {
    const control = await t.connect();
    const opened = await control.call('tabmux/tabs.open', { url: html('<p>shared login</p>', 'Login tab') });
    const target = (await workerOf(a)) === 0 ? b : a;
    const attached = await control.call('tabmux/session.attach', { session: target.id, pageId: opened.tab.pageId });
    expect(attached.pages.find((page) => page.origin === 'attached')?.title).toBe('Login tab');
    expect(await target.text('evaluate_script', { function: '() => document.title' })).toContain('Login tab');
    const { tabs } = await control.call('tabmux/tabs.list');
    expect(tabs.find((tab) => tab.owner === target.id && tab.title === 'Login tab')).toMatchObject({ pageId: opened.tab.pageId, ownerPageId: attached.pageId });
    // Another session cannot take it.
    await expect(control.call('tabmux/session.attach', { session: c.id, pageId: opened.tab.pageId })).rejects.toThrow(/belongs to session/);
    await control.call('tabmux/session.release', { session: target.id, pageId: attached.pageId! });
  });

  it('a worker killed mid-run affects only its own sessions', async () => {
    const status = await a.client.call('tabmux/status');
    const workerB = status.sessions.find((s) => s.id === b.id)!.worker;
    const pid = status.workers[workerB]!.pid!;
    const victim = b.call('evaluate_script', slow(8000));
    const bystander = c.call('evaluate_script', slow(1500));
    await untilCall(a.client, b.id, 'running');
    process.kill(pid, 'SIGKILL');
    const [lost, fine] = await Promise.all([victim, bystander]);
    expect(lost.isError).toBe(true);
    expect(fine.isError).toBeUndefined();
    expect(await a.text('evaluate_script', { function: '() => 1 + 1' })).toContain('2');
    // b keeps its tab on the restarted worker.
    const listed = await b.text('list_pages');
    expect(listed).toContain('pages were kept');
    expect(listed).toContain('Pool%20form');
    expect(await workerOf(b)).toBe(workerB);
  });

  it('closes a session on another worker with its tabs, then stops that idle worker', async () => {
    const workerC = await workerOf(c);
    const closed = await c.client.call('tabmux/session.close', { session: c.id });
    expect(closed.closedPages).toHaveLength(1);
    const { tabs } = await a.client.call('tabmux/tabs.list');
    expect(tabs.some((tab) => tab.owner === c.id)).toBe(false);
    if (workerC !== 0) {
      const pid = (await a.client.call('tabmux/status')).workers[workerC]!.pid!;
      await waitUntil(async () => (await a.client.call('tabmux/status')).workers[workerC]!.state === 'stopped', 'the idle worker to stop', 10_000);
      await waitUntil(() => !isProcessAlive(pid), 'the idle worker process to exit', 10_000);
    }
  });
});
