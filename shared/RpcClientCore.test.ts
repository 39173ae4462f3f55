import { describe, expect, it } from 'vitest';
import { TabmuxError } from './errors.js';
import { RpcClientCore } from './RpcClientCore.js';

function client(): { core: RpcClientCore; sent: unknown[]; notes: unknown[] } {
  const sent: unknown[] = [];
  const notes: unknown[] = [];
  const core = new RpcClientCore({ send: (text) => sent.push(JSON.parse(text)), onNotification: (method, params) => notes.push({ method, params }) });
  return { core, sent, notes };
}

describe('RpcClientCore', () => {
  it('matches replies by id and keeps the tabmux error code', async () => {
    const { core, sent } = client();
    const first = core.request('a', {});
    const second = core.request('b', {});
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'a', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'b', params: {} },
    ]);
    core.handleText(JSON.stringify({ jsonrpc: '2.0', id: 2, error: new TabmuxError('session_paused', 'paused').toWire() }));
    core.handleText(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ok: 1 } }));
    await expect(first).resolves.toEqual({ ok: 1 });
    await expect(second).rejects.toMatchObject({ code: 'session_paused', message: 'paused' });
    expect(core.pendingCount).toBe(0);
  });

  it('fails the oldest call on an error reply without an id, instead of leaving it waiting', async () => {
    const { core } = client();
    const first = core.request('a', {});
    const second = core.request('b', {});
    core.handleText(JSON.stringify({ jsonrpc: '2.0', id: null, error: new TabmuxError('line_too_long', 'too long').toWire() }));
    await expect(first).rejects.toMatchObject({ code: 'line_too_long' });
    expect(core.pendingCount).toBe(1);
    core.handleText(JSON.stringify({ jsonrpc: '2.0', id: 2, result: 'fine' }));
    await expect(second).resolves.toBe('fine');
  });

  it('fails the call named in the head of an unreadable reply, or else the oldest', async () => {
    const { core } = client();
    const first = core.request('a', {});
    const second = core.request('tools/call', {});
    core.handleUnreadable('{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"xxxx', new TabmuxError('response_too_large', 'it was too long'));
    await expect(second).rejects.toMatchObject({ code: 'response_too_large', message: 'the reply to tools/call was dropped: it was too long' });
    core.handleUnreadable('{"jsonrpc":"2.0","result":"xxxx', new TabmuxError('response_too_large', 'it was too long'));
    await expect(first).rejects.toMatchObject({ code: 'response_too_large' });
  });

  it('passes notifications on and answers server requests it cannot serve', () => {
    const { core, sent, notes } = client();
    core.handleMessage({ jsonrpc: '2.0', method: 'tabmux/event', params: { type: 'queue' } });
    core.handleMessage({ jsonrpc: '2.0', id: 'r1', method: 'roots/list' });
    expect(notes).toEqual([{ method: 'tabmux/event', params: { type: 'queue' } }]);
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 'r1', error: { code: -32601, message: 'roots/list is not served by this client' } }]);
  });

  it('fails every waiting call at once', async () => {
    const { core } = client();
    const calls = [core.request('a', {}), core.request('b', {})];
    core.failAll(new TabmuxError('daemon_not_running', 'closed'));
    for (const call of calls) {
      await expect(call).rejects.toMatchObject({ code: 'daemon_not_running' });
    }
  });
});
