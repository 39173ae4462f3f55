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

  it('cancels queued calls by id and by owner; a running one is answered at once and handed to its worker to end', async () => {
    const queue = new FairQueue(0, 1);
    const gate = deferred();
    let callId = -1;
    const running = queue.enqueue({ sessionId: 'a', tool: 't', timeoutMs: 5000, owner: 'c1', run: () => gate.promise });
    const byId = queue.enqueue({ sessionId: 'b', tool: 't', timeoutMs: 5000, run: async () => 1, onQueued: (id) => (callId = id) });
    const byOwner = queue.enqueue({ sessionId: 'a', tool: 't', timeoutMs: 5000, owner: 'c1', run: async () => 1 });
    expect(queue.cancel(callId)).toBe(true);
    await expect(byId).rejects.toMatchObject({ code: 'cancelled' });
    const { TabmuxError } = await import('../../../shared/errors.js');
    expect(queue.cancelWhere((job) => job.owner === 'c1', new TabmuxError('cancelled', 'gone'))).toBe(1);
    await expect(byOwner).rejects.toMatchObject({ code: 'cancelled' });
    const runningId = queue.entries().find((e) => e.state === 'running')?.callId ?? -1;
    expect(queue.cancel(runningId)).toBe(true);
    await expect(running).rejects.toMatchObject({ code: 'cancelled' });
    // Answered, but upstream still runs it: the slot is held until it ends.
    expect(queue.inFlight).toBe(1);
    expect(await queue.whenFinished(runningId, 10)).toBe(false);
    gate.resolve();
    expect(await queue.whenFinished(runningId, 1000)).toBe(true);
    expect(queue.inFlight).toBe(0);
    expect(queue.size).toBe(0);
  });

  it('tells its worker about every running call it gives up on: timed out, cancelled, or its client gone', async () => {
    const overrun: string[] = [];
    const queue = new FairQueue(0, 2, { onOverrun: (call) => overrun.push(`${call.sessionId}:${call.tool}`) });
    const gates = [deferred(), deferred()] as const;
    const timedOut = queue.enqueue({ sessionId: 'a', tool: 'wait_for', timeoutMs: 20, run: () => gates[0].promise });
    const owned = queue.enqueue({ sessionId: 'b', tool: 'click', owner: 'c1', timeoutMs: 5000, run: () => gates[1].promise });
    await expect(timedOut).rejects.toMatchObject({ code: 'timeout' });
    const { TabmuxError } = await import('../../../shared/errors.js');
    expect(queue.endRunningWhere((job) => job.owner === 'c1', new TabmuxError('cancelled', 'the client disconnected'))).toBe(1);
    await expect(owned).rejects.toMatchObject({ code: 'cancelled' });
    expect(overrun).toEqual(['a:wait_for', 'b:click']);
    expect(queue.overrun().map((call) => call.sessionId)).toEqual(['a', 'b']);
    for (const gate of gates) {
      gate.resolve();
    }
  });
});
