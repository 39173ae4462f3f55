import { describe, expect, it } from 'vitest';
import { FairQueue } from './FairQueue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('FairQueue', () => {
  it('runs one call at a time and alternates between sessions', async () => {
    const queue = new FairQueue(0, 1);
    const order: string[] = [];
    const gate = deferred();
    const first = queue.enqueue({ sessionId: 'a', tool: 't', timeoutMs: 5000, run: () => gate.promise.then(() => order.push('a0')) });
    const rest = [
      queue.enqueue({ sessionId: 'a', tool: 't', timeoutMs: 5000, run: async () => order.push('a1') }),
      queue.enqueue({ sessionId: 'a', tool: 't', timeoutMs: 5000, run: async () => order.push('a2') }),
      queue.enqueue({ sessionId: 'b', tool: 't', timeoutMs: 5000, run: async () => order.push('b0') }),
    ];
    expect(queue.inFlight).toBe(1);
    expect(queue.entries().map((e) => `${e.sessionId}:${e.state}`)).toEqual(['a:running', 'a:queued', 'a:queued', 'b:queued']);
    gate.resolve();
    await Promise.all([first, ...rest]);
    expect(order).toEqual(['a0', 'b0', 'a1', 'a2']);
  });

  it('times out a queued call without running it, and a running one without freeing its slot early', async () => {
    const queue = new FairQueue(0, 1);
    const gate = deferred();
    let ran = false;
    const slow = queue.enqueue({ sessionId: 'a', tool: 'slow', timeoutMs: 50, run: () => gate.promise });
    const starved = queue.enqueue({ sessionId: 'b', tool: 'fast', timeoutMs: 30, run: async () => (ran = true) });
    await expect(starved).rejects.toMatchObject({ code: 'timeout' });
    await expect(slow).rejects.toMatchObject({ code: 'timeout' });
    expect(queue.inFlight).toBe(1);
    gate.resolve();
    await new Promise((r) => setTimeout(r, 10));
    expect(queue.inFlight).toBe(0);
    expect(ran).toBe(false);
  });

  it('skips paused sessions and explains a paused timeout', async () => {
    const paused = new Set(['p']);
    const queue = new FairQueue(0, 1, { isPaused: (id) => paused.has(id) });
    const held = queue.enqueue({ sessionId: 'p', tool: 'click', timeoutMs: 40, run: async () => 'ran' });
    const free = queue.enqueue({ sessionId: 'q', tool: 'click', timeoutMs: 1000, run: async () => 'free' });
    await expect(free).resolves.toBe('free');
    await expect(held).rejects.toMatchObject({ code: 'session_paused' });
  });

  it('cancels queued calls by id and by owner, never running ones', async () => {
    const queue = new FairQueue(0, 1);
    const gate = deferred();
    let callId = -1;
    const running = queue.enqueue({ sessionId: 'a', tool: 't', timeoutMs: 5000, owner: 'c1', run: () => gate.promise });
    const byId = queue.enqueue({ sessionId: 'b', tool: 't', timeoutMs: 5000, run: async () => 1, onQueued: (id) => (callId = id) });
    const byOwner = queue.enqueue({ sessionId: 'a', tool: 't', timeoutMs: 5000, owner: 'c1', run: async () => 1 });
    expect(queue.cancel(callId)).toBe(true);
    await expect(byId).rejects.toMatchObject({ code: 'cancelled' });
    const runningId = queue.entries().find((e) => e.state === 'running')?.callId ?? -1;
    expect(queue.cancel(runningId)).toBe(false);
    const { TabmuxError } = await import('../../../shared/errors.js');
    expect(queue.cancelWhere((job) => job.owner === 'c1', new TabmuxError('cancelled', 'gone'))).toBe(1);
    await expect(byOwner).rejects.toMatchObject({ code: 'cancelled' });
    gate.resolve();
    await running;
    expect(queue.size).toBe(0);
  });
});
