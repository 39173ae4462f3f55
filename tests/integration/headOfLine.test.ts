import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../shared/toolResult.js';
import { html, startTestDaemon, uidOf, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';

/**
 * More sessions than workers: two sessions share a worker, and one of them starts a long call. The other one's
 * quick call must not wait for it: it moves to the idle worker. (Before, it waited the whole long call.)
 */
let t: TestDaemon;
let long: BoundSession;
let idle: BoundSession;
let quick: BoundSession;

beforeAll(async () => {
  t = await startTestDaemon({ workers: 2 });
  long = await t.session('long');
  idle = await t.session('idle');
  quick = await t.session('quick');
  // One after another: calls at once would let the pool move a session whose worker is busy with another's call (what
  // this file tests), so the sessions could end up anywhere. In turn, each worker is idle when a call arrives: long and
  // quick stay on worker 0, where they were pinned, and idle on worker 1.
  await long.text('new_page', { url: html('<h1>Long</h1>', 'Long page') });
  await idle.text('new_page', { url: html('<h1>Idle</h1>', 'Idle page') });
  await quick.text('new_page', { url: html('<button>Press</button>', 'Quick page') });
});

afterAll(async () => {
  await t.stop();
});

async function workerOf(session: BoundSession): Promise<number | undefined> {
  return (await session.client.call('tabmux/status')).sessions.find((info) => info.id === session.id)?.worker;
}

describe('a quick call beside another session\'s long call on the same worker', () => {
  it('moves to an idle worker and is answered while the long call still runs', async () => {
    const shared = await workerOf(long);
    expect(await workerOf(quick)).toBe(shared);
    expect(await workerOf(idle)).not.toBe(shared);
    const snapshot = await quick.text('take_snapshot');
    const staleToken = uidOf(snapshot, 'button', 'Press');

    let longDone = false;
    const running = long.text('evaluate_script', { function: 'async () => { await new Promise((r) => setTimeout(r, 8000)); return "slept"; }', waitForStableDom: false }).finally(() => {
      longDone = true;
    });
    // Once the long call runs, the quick one arrives.
    for (let i = 0; i < 100 && !(await long.client.call('tabmux/status')).queue.some((entry) => entry.sessionId === long.id && entry.state === 'running'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await quick.text('evaluate_script', { function: '() => document.title' });
    expect(longDone).toBe(false);
    expect(answer).toContain('Quick page');
    expect(answer).toContain('moved to another upstream worker');
    expect(await workerOf(quick)).not.toBe(shared);

    // The status says who each worker serves and what it is busy with.
    const status = await quick.client.call('tabmux/status');
    const busy = status.workers.find((worker) => worker.index === shared);
    expect(busy?.busy).toMatchObject({ sessionId: long.id, tool: 'evaluate_script' });
    expect(busy?.sessionIds).toEqual([long.id]);
    const moved = await workerOf(quick);
    expect(status.workers.find((worker) => worker.index === moved)?.sessionIds?.sort()).toEqual([idle.id, quick.id].sort());

    // Its tokens from before the move are refused with the way out, never sent to the wrong process.
    const stale = await quick.call('click', { uid: staleToken });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/take_snapshot/);
    const fresh = await quick.text('take_snapshot');
    await quick.text('click', { uid: uidOf(fresh, 'button', 'Press') });
    expect(await running).toContain('slept');
  });

  it('stays on its worker while that worker has nothing of anyone else to do', async () => {
    const before = await workerOf(quick);
    const answer = await quick.text('evaluate_script', { function: '() => document.title' });
    expect(answer).not.toContain('moved');
    expect(await workerOf(quick)).toBe(before);
  });
});
