import { describe, expect, it, vi } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { OVERRUN_GRACE_MS, SPARE_AFTER_MS, type Worker } from './Worker.js';
import type { WorkerPool } from './WorkerPool.js';
import { FakeBrowser, FakeUpstream } from './testing/FakeUpstream.js';
import { isUpstreamClosed, poolSetup } from './testing/poolSetup.js';

/** Starts a call of `tool` doing `run` on the pool's first worker, then gives up on it as its time limit would. */
async function giveUpOn(pool: WorkerPool, tool: string, run: () => Promise<void>): Promise<Worker> {
  const worker = pool.first;
  await worker.ensureStarted();
  let callId = 0;
  const running = worker.queue.enqueue({ sessionId: 'a', tool, timeoutMs: 5_000, run, onQueued: (id) => (callId = id) });
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(pool.cancel(callId)).toBe(true);
  await expect(running).rejects.toMatchObject({ code: 'cancelled' });
  return worker;
}

describe('a call given up on while upstream runs it', () => {
  it('asks the browser again and again to end a call given up on, and keeps the worker once it ends', async () => {
    let release: () => void = () => undefined;
    let asked = 0;
    // The first asks land before the call's own script runs (upstream's small scripts take them); the third ends it.
    const { pool, started } = poolSetup({
      endAtBrowser: () => {
        asked++;
        if (asked === 3) {
          release();
        }
        return Promise.resolve();
      },
    });
    const worker = await giveUpOn(pool, 'evaluate_script', () => new Promise<void>((resolve) => (release = resolve)));
    await vi.waitFor(() => expect(worker.queue.inFlight).toBe(0));
    await new Promise((resolve) => setTimeout(resolve, OVERRUN_GRACE_MS + 100));
    expect(asked).toBe(3);
    // The call ended within the grace: the worker keeps its upstream (a spare started on the side is not used).
    expect(worker.upstream).toBe(started[0]);
  });

  it('keeps a worker whose call was given up on while the browser did not answer, and judges it once the browser answers', async () => {
    let release: () => void = () => undefined;
    let browserBack: (waited: boolean) => void = () => undefined;
    let askedWhenBack = 0;
    let asked = 0;
    const { pool, started } = poolSetup({
      // The browser answers nothing: the call cannot end until it does.
      browserAnswering: () => new Promise<boolean>((resolve) => (browserBack = resolve)),
      endAtBrowser: () => {
        asked++;
        return Promise.resolve();
      },
    });
    const worker = await giveUpOn(pool, 'take_snapshot', () => new Promise<void>((resolve) => (release = resolve)));
    // Long past the grace: a worker waiting on a browser that does not answer is not replaced, and none is started.
    await new Promise((resolve) => setTimeout(resolve, OVERRUN_GRACE_MS + 200));
    expect(started).toHaveLength(1);
    expect(worker.upstream).toBe(started[0]);
    askedWhenBack = asked;
    // The browser answers again and the call ends, as it does once its browser goes on: the worker is kept.
    browserBack(true);
    release();
    await new Promise((resolve) => setTimeout(resolve, OVERRUN_GRACE_MS + 200));
    expect(asked).toBeGreaterThan(askedWhenBack);
    expect(started).toHaveLength(1);
    expect(worker.upstream).toBe(started[0]);
    expect(worker.queue.inFlight).toBe(0);
  });

  it('replaces a worker whose call still holds it once the browser answers again', async () => {
    const { pool, started } = poolSetup({ browserAnswering: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 50)) });
    const worker = await giveUpOn(pool, 'wait_for', () => new Promise<void>(() => undefined));
    await vi.waitFor(() => expect(worker.upstream).toBe(started[1]), { timeout: OVERRUN_GRACE_MS * 3 });
    expect(await isUpstreamClosed(started[0] ?? new FakeUpstream(new FakeBrowser()))).toBe(true);
  });

  it('closes a replacement that was started ahead for a stuck call when the pool stops before it is used', async () => {
    // A call that never ends and that the browser does not end: after SPARE_AFTER_MS a replacement starts on the side.
    let spawnedAfterStop = 0;
    let stopping = false;
    const { pool, started } = poolSetup({
      startUpstream: async () => {
        if (stopping) {
          spawnedAfterStop++;
        }
        // A process takes a while to start: the pool stops while the replacement is on its way.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const upstream = new FakeUpstream(new FakeBrowser());
        started.push(upstream);
        return upstream;
      },
    });
    const worker = await giveUpOn(pool, 'wait_for', () => new Promise<void>(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, SPARE_AFTER_MS + 20));
    stopping = true;
    pool.closeQueues(new TabmuxError('daemon_stopping', 'the daemon is stopping'));
    await pool.stop();
    // Past the grace, when the stuck worker would have been replaced with the spare.
    await new Promise((resolve) => setTimeout(resolve, OVERRUN_GRACE_MS + 200));
    expect(started).toHaveLength(2);
    expect(await Promise.all(started.map(isUpstreamClosed))).toEqual([true, true]);
    expect(spawnedAfterStop).toBe(0);
    expect(worker.upstream).toBeNull();
    expect(pool.infos()[0]?.state).toBe('stopped');
    await expect(worker.ensureStarted()).rejects.toMatchObject({ code: 'daemon_stopping' });
  });
});
