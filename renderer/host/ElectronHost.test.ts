import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../shared/errors.js';
import { toIpcReply } from '../../shared/ipcReply.js';
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
    const host = new ElectronHost(bridge(() => toIpcReply(() => Promise.resolve({ profiles: [] }))));
    await expect(host.call('supervisor/snapshot', {})).resolves.toEqual({ profiles: [] });
  });

  it("keeps the server's error code and message", async () => {
    const host = new ElectronHost(
      bridge(() => toIpcReply(() => Promise.reject(new TabmuxError('daemon_not_running', 'profile work is not running (stopped); start it first')))),
    );
    await expect(host.call('supervisor/snapshot', {})).rejects.toMatchObject({
      code: 'daemon_not_running',
      message: 'profile work is not running (stopped); start it first',
    });
  });

  it('strips the IPC wrapper when IPC itself fails', async () => {
    const host = new ElectronHost(bridge(() => Promise.reject(new Error("Error invoking remote method 'tabmux:call': Error: no handler registered"))));
    await expect(host.call('supervisor/snapshot', {})).rejects.toThrow(/^no handler registered$/);
  });

  it('rejects results of the wrong shape', async () => {
    const host = new ElectronHost(bridge(() => toIpcReply(() => Promise.resolve({ profiles: 'none' }))));
    await expect(host.call('supervisor/snapshot', {})).rejects.toMatchObject({ code: 'protocol_mismatch' });
    await expect(host.call('supervisor/snapshot', {})).rejects.toThrow(/does not understand/);
  });

  it('checks a forwarded daemon result against that method', async () => {
    const host = new ElectronHost(bridge(() => toIpcReply(() => Promise.resolve({ cancelled: true }))));
    await expect(host.call('supervisor/daemon', { profile: 'work', method: 'tabmux/queue.cancel', params: { callId: 1 } })).resolves.toEqual({ cancelled: true });
    await expect(host.call('supervisor/daemon', { profile: 'work', method: 'tabmux/session.list', params: {} })).rejects.toMatchObject({ code: 'protocol_mismatch' });
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
