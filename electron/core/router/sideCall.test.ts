import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolResult } from '../../../shared/protocol.js';
import { FIRST_SIDE_CALL_DEADLINE_MS, SIDE_CALL_DEADLINE_MS, sideCall } from './sideCall.js';
import { FakeBrowser, FakeUpstream, fakeWorker } from './testing/FakeUpstream.js';

/** An upstream that never answers the tools in `stuckOn`, as upstream waiting on a blocked page; closing it fails them. */
class StuckUpstream extends FakeUpstream {
  readonly stuckOn = new Set<string>();
  readonly #waiting: Array<(error: Error) => void> = [];

  override callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (!this.stuckOn.has(name)) {
      return super.callTool(name, args);
    }
    this.calls.push({ name, args });
    return new Promise((_resolve, reject) => this.#waiting.push(reject));
  }

  override close(reason?: string): Promise<void> {
    for (const fail of this.#waiting.splice(0)) {
      fail(new Error(reason ?? 'closed'));
    }
    return super.close();
  }
}

function setup() {
  const upstream = new StuckUpstream(new FakeBrowser());
  const worker = fakeWorker(upstream);
  const recycled: string[] = [];
  const recycle = worker.recycle.bind(worker);
  vi.spyOn(worker, 'recycle').mockImplementation((reason: string) => {
    recycled.push(reason);
    return recycle(reason);
  });
  return { upstream, worker, recycled };
}

/** Whether a promise has settled, without waiting for it. */
function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

describe('sideCall', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers as upstream does when upstream answers', async () => {
    const { worker, recycled } = setup();
    const result = await sideCall(worker, 'list_pages', {});
    expect(result.isError).toBeUndefined();
    expect(recycled).toEqual([]);
  });

  it('fails a call upstream does not answer in time as a timeout, and replaces the worker’s upstream stuck in it', async () => {
    const { upstream, worker, recycled } = setup();
    await sideCall(worker, 'list_pages', {});
    upstream.stuckOn.add('get_tab_id');
    const call = sideCall(worker, 'get_tab_id', { pageId: 1 });
    const failed = expect(call).rejects.toMatchObject({ code: 'timeout' });
    await vi.advanceTimersByTimeAsync(SIDE_CALL_DEADLINE_MS);
    await failed;
    expect(recycled).toHaveLength(1);
    expect(recycled[0]).toContain('get_tab_id');
    expect(worker.upstream).toBeNull();
  });

  it('gives a fresh upstream’s first call longer, since it connects to the browser then', async () => {
    const { upstream, worker } = setup();
    upstream.stuckOn.add('list_pages');
    const call = sideCall(worker, 'list_pages', {});
    const done = settled(call);
    const failed = expect(call).rejects.toMatchObject({ code: 'timeout' });
    await vi.advanceTimersByTimeAsync(SIDE_CALL_DEADLINE_MS);
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(FIRST_SIDE_CALL_DEADLINE_MS - SIDE_CALL_DEADLINE_MS);
    await failed;
  });

  it('leaves an upstream being prepared in place, and fails its later side calls without sending them', async () => {
    const { upstream, worker, recycled } = setup();
    await sideCall(worker, 'list_pages', {});
    // As while a restarted upstream finds its sessions' tabs again, before it serves.
    worker.state = 'starting';
    upstream.stuckOn.add('get_tab_id');
    const call = sideCall(worker, 'get_tab_id', { pageId: 1 });
    const failed = expect(call).rejects.toMatchObject({ code: 'timeout' });
    await vi.advanceTimersByTimeAsync(SIDE_CALL_DEADLINE_MS);
    await failed;
    expect(recycled).toEqual([]);
    expect(worker.upstream).toBe(upstream);
    const sent = upstream.calls.length;
    await expect(sideCall(worker, 'get_tab_id', { pageId: 2 })).rejects.toMatchObject({ code: 'timeout' });
    expect(upstream.calls).toHaveLength(sent);
  });
});
