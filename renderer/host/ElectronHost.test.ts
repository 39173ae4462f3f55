import { describe, expect, it } from 'vitest';
import type { SupervisorBridge, SupervisorEvent } from '../../shared/supervisor.js';
import { ElectronHost } from './ElectronHost.js';
import type { HostConnection } from './Host.js';

function bridge(answer: () => Promise<unknown>): SupervisorBridge & { emit(event: unknown): void } {
  const listeners = new Set<(event: unknown) => void>();
  return {
    call: () => answer(),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    emit: (event) => {
      for (const listener of listeners) {
        listener(event);
      }
    },
  };
}

describe('ElectronHost', () => {
  it('passes checked results through', async () => {
    const host = new ElectronHost(bridge(() => Promise.resolve({ profiles: [] })));
    await expect(host.call('supervisor/snapshot', {})).resolves.toEqual({ profiles: [] });
  });

  it('strips the IPC wrapper from error messages', async () => {
    const host = new ElectronHost(
      bridge(() => Promise.reject(new Error("Error invoking remote method 'tabmux:call': TabmuxError: session sess-1 is paused; resume it first"))),
    );
    await expect(host.call('supervisor/snapshot', {})).rejects.toThrow(/^session sess-1 is paused; resume it first$/);
  });

  it('rejects results of the wrong shape', async () => {
    const host = new ElectronHost(bridge(() => Promise.resolve({ profiles: 'none' })));
    await expect(host.call('supervisor/snapshot', {})).rejects.toThrow(/does not understand/);
  });

  it('forwards only well-formed events and unsubscribes', () => {
    const source = bridge(() => Promise.resolve({}));
    const host = new ElectronHost(source);
    const events: SupervisorEvent[] = [];
    const stop = host.subscribe((event) => events.push(event));
    const good = { type: 'daemon', profile: 'work', event: { type: 'queue', profile: 'work', queue: [] } };
    source.emit(good);
    source.emit({ type: 'daemon', profile: 'work', event: { type: 'bogus' } });
    stop();
    source.emit(good);
    expect(events).toEqual([good]);
  });

  it('is always connected', () => {
    const seen: HostConnection[] = [];
    new ElectronHost(bridge(() => Promise.resolve({}))).watchConnection((connection) => seen.push(connection));
    expect(seen).toEqual([{ state: 'open' }]);
  });
});
