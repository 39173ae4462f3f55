import { describe, expect, it, vi } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { SYSTEM_LANE_ID } from '../../../shared/model.js';
import type { Upstream } from '../upstream/UpstreamClient.js';
import { Session } from './Session.js';
import type { Worker } from './Worker.js';
import { MOVED_SINCE } from './WorkerPool.js';
import { FakeBrowser, FakeUpstream } from './testing/FakeUpstream.js';
import { isUpstreamClosed, poolSetup } from './testing/poolSetup.js';

function sessionOn(worker: Worker, id = 'sess-00000000abcd1234'): Session {
  return new Session(id, id.slice(5, 13), null, worker.index, Date.now());
}

describe('WorkerPool', () => {
  it('pins each new session to the least loaded worker', () => {
    const { pool } = poolSetup();
    expect([pool.pin(), pool.pin(), pool.pin(), pool.pin()].map((worker) => worker.index)).toEqual([0, 1, 2, 0]);
    expect(pool.infos().map((info) => info.sessions)).toEqual([2, 1, 1]);
  });

  it('moves a session off a worker busy with another session\'s call to an idle running worker, and only then', async () => {
    const { pool } = poolSetup({ size: 2 });
    const [w0, w1] = [pool.pin(), pool.pin()];
    pool.pin();
    await Promise.all([w0.ensureStarted(), w1.ensureStarted()]);
    const other = sessionOn(w0, 'sess-00000000aaaa0000');
    const mover = sessionOn(w0, 'sess-00000000bbbb0000');
    const moves: string[] = [];
    const relocate = (session: Session, to: Worker, since: string): Promise<void> => {
      moves.push(`${session.id}->${to.index} since ${since}`);
      return Promise.resolve();
    };
    // Nobody else busy: it stays.
    expect((await pool.place(mover, relocate)).index).toBe(0);
    let release: () => void = () => undefined;
    const long = w0.queue.enqueue({ sessionId: other.id, tool: 'wait_for', timeoutMs: 5_000, run: () => new Promise<void>((resolve) => (release = resolve)) });
    // Its own call queued there keeps it in place (its calls keep their order).
    const ownGate = w0.queue.enqueue({ sessionId: mover.id, tool: 'click', timeoutMs: 5_000, run: () => Promise.resolve() });
    expect((await pool.place(mover, relocate)).index).toBe(0);
    release();
    await Promise.all([long, ownGate]);
    const again = w0.queue.enqueue({ sessionId: other.id, tool: 'wait_for', timeoutMs: 5_000, run: () => new Promise<void>((resolve) => (release = resolve)) });
    const placed = await pool.place(mover, relocate);
    expect(placed.index).toBe(1);
    expect(mover.worker).toBe(1);
    expect(moves).toEqual([`${mover.id}->1 since ${MOVED_SINCE.busy}`]);
    expect(pool.infos().map((info) => info.sessions)).toEqual([1, 2]);
    release();
    await again;
  });

  it('puts a session whose worker is not running on a running one while a dialog would hold a fresh worker, and only then', async () => {
    let held = true;
    const { pool, started } = poolSetup({ size: 2, startWouldWait: () => held });
    const [w0, w1] = [pool.pin(), pool.pin()];
    await w0.ensureStarted();
    const relocate = (): Promise<void> => Promise.resolve();
    const first = sessionOn(w1, 'sess-00000000aaaa0000');
    const placed = await pool.place(first, relocate);
    expect(placed.index).toBe(0);
    expect(first.worker).toBe(0);
    expect(started).toHaveLength(1);
    expect(pool.infos().map((info) => info.sessions)).toEqual([2, 0]);
    // Once no dialog holds a tab, a session pinned to a worker that is not running stays there, and it starts.
    held = false;
    const second = sessionOn(pool.pin(), 'sess-00000000bbbb0000');
    expect(second.worker).toBe(1);
    expect((await pool.place(second, relocate)).index).toBe(1);
  });

  it('asks whether a start would wait once per placing, and moves a session once however many of its calls were placed meanwhile', async () => {
    const answers: Array<(wait: boolean) => void> = [];
    const { pool } = poolSetup({ size: 2, startWouldWait: () => new Promise<boolean>((resolve) => answers.push(resolve)) });
    const [w0, w1] = [pool.pin(), pool.pin()];
    await w0.ensureStarted();
    const moves: string[] = [];
    const relocate = (moving: Session, to: Worker, since: string): Promise<void> => {
      moves.push(`${moving.id}->${to.index} since ${since}`);
      return Promise.resolve();
    };
    const mover = sessionOn(w1, 'sess-00000000cccc0000');
    const placing = [pool.place(mover, relocate), pool.place(mover, relocate)];
    await vi.waitFor(() => expect(answers).toHaveLength(2));
    answers.forEach((answer) => answer(true));
    expect((await Promise.all(placing)).map((worker) => worker.index)).toEqual([0, 0]);
    expect(moves).toEqual([`${mover.id}->0 since ${MOVED_SINCE.held}`]);
    expect(pool.infos().map((info) => info.sessions)).toEqual([2, 0]);
  });

  it('leaves a session where it is when moving fails, counts included', async () => {
    const { pool } = poolSetup({ size: 2 });
    const [w0, w1] = [pool.pin(), pool.pin()];
    await Promise.all([w0.ensureStarted(), w1.ensureStarted()]);
    const mover = sessionOn(w0, 'sess-00000000bbbb0000');
    let release: () => void = () => undefined;
    const long = w0.queue.enqueue({ sessionId: 'sess-other', tool: 'wait_for', timeoutMs: 5_000, run: () => new Promise<void>((resolve) => (release = resolve)) });
    const placed = await pool.place(mover, () => Promise.reject(new TabmuxError('timeout', 'listing pages timed out')));
    expect(placed.index).toBe(0);
    expect(pool.infos().map((info) => info.sessions)).toEqual([1, 1]);
    release();
    await long;
  });

  it('starts a worker on first need, prepares it, and runs the router\'s own jobs in the system lane', async () => {
    const { pool, started, prepared, seen } = poolSetup();
    const worker = pool.first;
    let lane: string | undefined;
    const result = await pool.runSystem(worker, 'list_pages', () => {
      lane = pool.queue()[0]?.sessionId;
      return worker.call('list_pages', {});
    });
    expect(result.isError).toBeUndefined();
    expect(lane).toBe(SYSTEM_LANE_ID);
    expect(started).toHaveLength(1);
    expect(prepared).toEqual([0]);
    // Watchers are told of the start and of the readiness, the last with what the worker is now.
    expect(seen.map((infos) => infos[0]?.state)).toEqual(['starting', 'ready']);
    expect(seen.at(-1)?.[0]?.pid).toBe(pool.infos()[0]?.pid);
    expect(pool.infos()[0]?.state).toBe('ready');
  });

  it('asks for the browser before every call, and a call the browser cannot take never reaches upstream', async () => {
    let browserThere = false;
    let asked = 0;
    const { pool, started } = poolSetup({
      browserReady: () => {
        asked++;
        return browserThere ? Promise.resolve() : Promise.reject(new TabmuxError('browser_unavailable', 'the browser at http://127.0.0.1:9 is not reachable'));
      },
    });
    const worker = pool.first;
    await expect(worker.call('list_pages', {})).rejects.toThrow(/not reachable/);
    expect(started.flatMap((upstream) => upstream.calls)).toEqual([]);
    browserThere = true;
    await worker.call('list_pages', {});
    expect(started.flatMap((upstream) => upstream.calls).map((call) => call.name)).toEqual(['list_pages']);
    expect(asked).toBe(2);
  });

  it('closes an upstream it could not prepare', async () => {
    let closedOne = false;
    const { pool } = poolSetup({
      prepare: (_worker: Worker, upstream: Upstream) => {
        void upstream.closed.then(() => {
          closedOne = true;
        });
        return Promise.reject(new TabmuxError('upstream_failed', 'could not list pages'));
      },
    });
    await expect(pool.first.ensureStarted()).rejects.toMatchObject({ code: 'upstream_failed' });
    await Promise.resolve();
    expect(closedOne).toBe(true);
    expect(pool.infos()[0]?.state).toBe('failed');
  });

  it('marks a worker whose upstream exits as failed, and restarts it on the next call', async () => {
    const { pool, started } = poolSetup();
    const worker = pool.first;
    await worker.ensureStarted();
    await started[0]?.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool.infos()[0]).toMatchObject({ state: 'failed', lastError: 'chrome-devtools-mcp exited unexpectedly' });
    await worker.call('list_pages', {});
    expect(started).toHaveLength(2);
  });

  it('lets a session leave: its queued calls fail, its pages lose their owner', async () => {
    const { pool } = poolSetup();
    const worker = pool.pin();
    const session = sessionOn(worker);
    session.addPage(1, 'created');
    worker.owners.set(1, session.id);
    worker.owners.set(2, 'sess-someoneelse');
    let release: () => void = () => undefined;
    const blocker = worker.queue.enqueue({ sessionId: 'sess-someoneelse', tool: 'click', timeoutMs: 5_000, run: () => new Promise<void>((resolve) => (release = resolve)) });
    const queued = worker.queue.enqueue({ sessionId: session.id, tool: 'click', timeoutMs: 5_000, run: () => Promise.resolve() });
    const left = pool.leave(session, new TabmuxError('session_closed', `session ${session.id} was closed`));
    await expect(queued).rejects.toMatchObject({ code: 'session_closed' });
    release();
    await blocker;
    expect(left).toBe(worker);
    expect(worker.sessions).toBe(0);
    expect([...worker.owners.keys()]).toEqual([2]);
  });

  it('stops extra workers that have been idle a while, never the first', async () => {
    const { pool } = poolSetup();
    await pool.first.ensureStarted();
    const extra = pool.at(1);
    await extra?.ensureStarted();
    pool.stopIdle(Date.now() + 500);
    expect(extra?.upstream).not.toBeNull();
    pool.stopIdle(Date.now() + 2_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool.infos().map((info) => info.state)).toEqual(['ready', 'stopped', 'stopped']);
  });

  it('drops a vanished client\'s queued calls, ends its running ones, and cancels single calls', async () => {
    const { pool } = poolSetup();
    const worker = pool.first;
    let release: () => void = () => undefined;
    const running = worker.queue.enqueue({ sessionId: 'a', tool: 'x', owner: 'conn-1', timeoutMs: 5_000, run: () => new Promise<void>((resolve) => (release = resolve)) });
    const queued = worker.queue.enqueue({ sessionId: 'b', tool: 'y', owner: 'conn-1', timeoutMs: 5_000, run: () => Promise.resolve() });
    let callId = 0;
    const other = worker.queue.enqueue({ sessionId: 'c', tool: 'z', timeoutMs: 5_000, run: () => Promise.resolve(), onQueued: (id) => (callId = id) });
    expect(pool.dropOwner('conn-1')).toBe(2);
    expect(pool.cancel(callId)).toBe(true);
    await expect(running).rejects.toMatchObject({ code: 'cancelled' });
    await expect(queued).rejects.toMatchObject({ code: 'cancelled' });
    await expect(other).rejects.toMatchObject({ code: 'cancelled' });
    release();
  });

  it('refuses calls once closed and stops every upstream', async () => {
    const { pool, started } = poolSetup();
    await pool.first.ensureStarted();
    let stopped = false;
    void started[0]?.closed.then(() => (stopped = true));
    pool.closeQueues(new TabmuxError('daemon_stopping', 'the daemon is stopping'));
    await expect(pool.runSystem(pool.first, 'list_pages', () => Promise.resolve(1))).rejects.toMatchObject({ code: 'daemon_stopping' });
    await pool.stop();
    expect(stopped).toBe(true);
    expect(pool.infos()[0]?.state).toBe('stopped');
  });

  it('closes an upstream that was still starting when the pool stopped, and starts none after', async () => {
    let finish: () => void = () => undefined;
    const { pool, started } = poolSetup({
      startUpstream: async () => {
        await new Promise<void>((resolve) => (finish = resolve));
        const upstream = new FakeUpstream(new FakeBrowser());
        started.push(upstream);
        return upstream;
      },
    });
    const starting = pool.first.ensureStarted();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const stopped = pool.stop();
    finish();
    await stopped;
    await expect(starting).rejects.toMatchObject({ code: 'daemon_stopping' });
    expect(started).toHaveLength(1);
    expect(await Promise.all(started.map(isUpstreamClosed))).toEqual([true]);
    expect(pool.first.upstream).toBeNull();
    expect(pool.infos()[0]?.state).toBe('stopped');
  });

  it('forgets every worker\'s pages when the browser is lost', async () => {
    const { pool, workerEvents } = poolSetup();
    const worker = pool.first;
    await worker.ensureStarted();
    worker.owners.set(1, 'sess-a');
    const before = workerEvents();
    await pool.browserLost('Chrome exited');
    expect(worker.owners.size).toBe(0);
    expect(worker.upstream).toBeNull();
    expect(pool.infos()[0]?.state).toBe('restarting');
    expect(workerEvents()).toBeGreaterThan(before);
  });

  it('after the browser is lost, only workers that ran an upstream for someone say they are restarting', async () => {
    const { pool } = poolSetup();
    const [first, serving, spare] = [pool.first, pool.at(1), pool.at(2)];
    if (!serving || !spare) {
      throw new Error('the pool has three workers');
    }
    await first.ensureStarted();
    await serving.ensureStarted();
    serving.sessions = 1;
    expect(spare.state).toBe('stopped');
    await pool.browserLost('Chrome exited');
    // The first worker and one serving a session restart on their next call; one never started stays as it was.
    expect(pool.infos().map((info) => info.state)).toEqual(['restarting', 'restarting', 'stopped']);

    // A started extra worker with no sessions is stopped, as an idle one is, rather than left "restarting".
    serving.sessions = 0;
    await serving.ensureStarted();
    await pool.browserLost('Chrome exited again');
    expect(pool.infos().map((info) => info.state)).toEqual(['restarting', 'stopped', 'stopped']);
  });
});
