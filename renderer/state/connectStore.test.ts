import { afterEach, describe, expect, it, vi } from 'vitest';
import { TabmuxError } from '../../shared/errors.js';
import type { SupervisorSnapshot } from '../../shared/supervisor.js';
import { connectStore } from './connectStore.js';
import { createTabmuxStore } from './createTabmuxStore.js';
import { TestHost } from './testHost.js';
import { makeSession, makeView, stoppedView } from './testData.js';

const A = 'sess-aaaaaaaaaaaaaaaa';

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('connectStore', () => {
  it('loads the snapshot when the host is open', async () => {
    const host = new TestHost(() => ({ profiles: [makeView('work')] }));
    const store = createTabmuxStore();
    connectStore(host, store);
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true));
    expect(store.getState().profiles['work']?.state).toBe('ready');
    expect(store.getState().connection).toEqual({ state: 'open' });
    expect(host.calls).toEqual([{ method: 'supervisor/snapshot', params: {} }]);
  });

  it('replays events that arrive while the snapshot is in flight', async () => {
    const reply = deferred<SupervisorSnapshot>();
    const host = new TestHost(() => reply.promise);
    const store = createTabmuxStore();
    connectStore(host, store);
    host.emit({ type: 'daemon', profile: 'work', event: { type: 'session.updated', profile: 'work', session: makeSession({ id: A }) } });
    expect(store.getState().loaded).toBe(false);
    reply.resolve({ profiles: [makeView('work')] });
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true));
    expect(store.getState().sessions['work']?.[A]).toBeDefined();
  });

  it('applies events directly once loaded', async () => {
    const host = new TestHost(() => ({ profiles: [stoppedView('work')] }));
    const store = createTabmuxStore();
    connectStore(host, store);
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true));
    host.emit({ type: 'profile', profile: { ...stoppedView('work'), state: 'starting' } });
    expect(store.getState().profiles['work']?.state).toBe('starting');
  });

  it('reloads the snapshot after a reconnect, dropping profiles that are gone', async () => {
    let snapshot: SupervisorSnapshot = { profiles: [makeView('work'), stoppedView('old')] };
    const host = new TestHost(() => snapshot);
    const store = createTabmuxStore();
    connectStore(host, store);
    await vi.waitFor(() => expect(store.getState().profiles['old']).toBeDefined());
    host.setConnection({ state: 'closed', reason: 'server went away', retryAt: null });
    expect(store.getState().connection.state).toBe('closed');
    snapshot = { profiles: [makeView('work')] };
    host.setConnection({ state: 'open' });
    await vi.waitFor(() => expect(store.getState().profiles['old']).toBeUndefined());
    expect(host.calls).toHaveLength(2);
  });

  it('reports a failed snapshot and retries while connected', async () => {
    vi.useFakeTimers();
    let fail = true;
    const host = new TestHost(() => {
      if (fail) {
        throw new TabmuxError('internal', 'supervisor is still starting');
      }
      return { profiles: [] };
    });
    const store = createTabmuxStore();
    connectStore(host, store, { retryMs: 1000 });
    await vi.waitFor(() => expect(store.getState().loadError).toBe('supervisor is still starting'));
    fail = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.getState().loadError).toBeNull();
    expect(store.getState().loaded).toBe(true);
  });

  it('ignores a snapshot that lands after the connection dropped', async () => {
    const reply = deferred<SupervisorSnapshot>();
    const host = new TestHost(() => reply.promise);
    const store = createTabmuxStore();
    connectStore(host, store);
    host.setConnection({ state: 'closed', reason: 'gone', retryAt: null });
    reply.resolve({ profiles: [makeView('stale')] });
    await Promise.resolve();
    await Promise.resolve();
    expect(store.getState().loaded).toBe(false);
  });

  it('stops listening after teardown', async () => {
    const host = new TestHost(() => ({ profiles: [stoppedView('work')] }));
    const store = createTabmuxStore();
    const stop = connectStore(host, store);
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true));
    stop();
    host.emit({ type: 'profile', profile: makeView('work') });
    expect(store.getState().profiles['work']?.state).toBe('stopped');
  });
});
