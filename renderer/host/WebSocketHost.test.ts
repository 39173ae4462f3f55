import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TabmuxError } from '../../shared/errors.js';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import type { HostConnection } from './Host.js';
import { WebSocketHost, type SocketLike } from './WebSocketHost.js';

/** A socket the test drives by hand: it records what the host sends and lets the test deliver frames. */
class ManualSocket implements SocketLike {
  readyState = 0;
  readonly sent: unknown[] = [];
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  constructor(readonly url: string) {}

  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }

  close(): void {
    this.readyState = 3;
  }

  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }

  receive(message: unknown): void {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(message) }));
  }

  drop(reason = ''): void {
    this.readyState = 3;
    // CloseEvent is not in Node; the host reads only `reason`.
    const event = Object.assign(new Event('close'), { code: 1006, reason, wasClean: false });
    this.onclose?.(event);
  }
}

let sockets: ManualSocket[];
let host: WebSocketHost;
let connections: HostConnection[];

function lastSocket(): ManualSocket {
  const socket = sockets.at(-1);
  if (!socket) {
    throw new Error('no socket created');
  }
  return socket;
}

beforeEach(() => {
  vi.useFakeTimers();
  sockets = [];
  connections = [];
  host = new WebSocketHost({
    url: 'ws://127.0.0.1:7000/ws?token=t',
    createSocket: (url) => {
      const socket = new ManualSocket(url);
      sockets.push(socket);
      return socket;
    },
    backoffMs: (attempt) => 100 * 2 ** attempt,
  });
  host.watchConnection((connection) => connections.push(connection));
});

afterEach(() => {
  host.dispose();
  vi.useRealTimers();
});

describe('WebSocketHost', () => {
  it('connects to the given url and reports the connection', () => {
    expect(lastSocket().url).toBe('ws://127.0.0.1:7000/ws?token=t');
    expect(connections).toEqual([{ state: 'connecting' }]);
    lastSocket().open();
    expect(connections.at(-1)).toEqual({ state: 'open' });
  });

  it('sends JSON-RPC requests and resolves with checked results', async () => {
    lastSocket().open();
    const reply = host.call('supervisor/snapshot', {});
    expect(lastSocket().sent).toEqual([{ jsonrpc: '2.0', id: 1, method: 'supervisor/snapshot', params: {} }]);
    lastSocket().receive({ jsonrpc: '2.0', id: 1, result: { profiles: [] } });
    await expect(reply).resolves.toEqual({ profiles: [] });
  });

  it('rejects with the server message and code', async () => {
    lastSocket().open();
    const reply = host.call('supervisor/profile.start', { profile: 'nope' });
    lastSocket().receive({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'no profile named nope', data: { code: 'invalid_profile' } } });
    await expect(reply).rejects.toMatchObject({ code: 'invalid_profile', message: 'no profile named nope' });
  });

  it('rejects a result of the wrong shape', async () => {
    lastSocket().open();
    const reply = host.call('supervisor/snapshot', {});
    lastSocket().receive({ jsonrpc: '2.0', id: 1, result: '<html>' });
    await expect(reply).rejects.toBeInstanceOf(TabmuxError);
  });

  it('refuses calls while not connected', async () => {
    await expect(host.call('supervisor/snapshot', {})).rejects.toThrow(/Not connected/);
  });

  it('delivers supervisor events and drops malformed ones', () => {
    const events: SupervisorEvent[] = [];
    host.subscribe((event) => events.push(event));
    lastSocket().open();
    const view = { name: 'work', kind: 'launched', endpoint: null, state: 'stopped', lastError: null, unanswered: false, status: null, tabs: [] };
    lastSocket().receive({ jsonrpc: '2.0', method: 'supervisor/event', params: { type: 'profile', profile: view } });
    lastSocket().receive({ jsonrpc: '2.0', method: 'supervisor/event', params: { type: 'profile', profile: { name: 1 } } });
    lastSocket().receive({ jsonrpc: '2.0', method: 'other/event', params: {} });
    lastSocket().receive('not json-rpc');
    expect(events).toEqual([{ type: 'profile', profile: view }]);
  });

  it('fails calls in flight when the socket drops, then reconnects with backoff', async () => {
    lastSocket().open();
    const reply = host.call('supervisor/snapshot', {});
    lastSocket().drop();
    await expect(reply).rejects.toMatchObject({ code: 'dashboard_unreachable' });
    const closed = connections.at(-1);
    expect(closed?.state).toBe('closed');
    expect(closed?.state === 'closed' && closed.reason).toMatch(/tabmux dashboard/);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(sockets).toHaveLength(2);
    lastSocket().drop('server shutting down');
    expect(connections.at(-1)).toMatchObject({ state: 'closed', reason: 'server shutting down' });
    vi.advanceTimersByTime(199);
    expect(sockets).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(3);
    lastSocket().open();
    expect(connections.at(-1)).toEqual({ state: 'open' });
    lastSocket().drop();
    vi.advanceTimersByTime(100);
    expect(sockets).toHaveLength(4);
  });

  it('stops reconnecting once disposed', () => {
    lastSocket().open();
    host.dispose();
    lastSocket().drop();
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(1);
  });

  it('times out a call that gets no reply', async () => {
    lastSocket().open();
    const reply = host.call('supervisor/snapshot', {});
    vi.advanceTimersByTime(90_000);
    await expect(reply).rejects.toMatchObject({ code: 'timeout' });
  });
});
