import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { Logger } from '../platform/Logger.js';
import { RpcServerConnection, type MessageKind } from './RpcServerConnection.js';

function serve(dispatch: (method: string) => unknown, maxMessageBytes = 1000) {
  const out: { message: unknown; kind: MessageKind }[] = [];
  const connection = new RpcServerConnection({
    write: (text, kind) => out.push({ message: JSON.parse(text), kind }),
    dispatch: (request) => Promise.resolve().then(() => dispatch(request.method)),
    logger: Logger.silent(),
    maxMessageBytes,
  });
  const settled = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { connection, out, settled };
}

describe('RpcServerConnection', () => {
  it('answers requests and their errors with the tabmux code', async () => {
    const { connection, out, settled } = serve((method) => {
      if (method === 'bad') {
        throw new TabmuxError('unknown_session', 'no such session');
      }
      return { ok: method };
    });
    connection.handleText('{"jsonrpc":"2.0","id":1,"method":"good"}');
    connection.handleText('{"jsonrpc":"2.0","id":"b","method":"bad"}');
    connection.handleText('{"jsonrpc":"2.0","method":"good"}');
    await settled();
    expect(out.map((entry) => entry.message)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { ok: 'good' } },
      { jsonrpc: '2.0', id: 'b', error: { code: -32000, message: 'no such session', data: { code: 'unknown_session' } } },
    ]);
  });

  it('replaces a reply over the limit with response_too_large for the same id', async () => {
    const { connection, out, settled } = serve(() => ({ text: 'x'.repeat(2000) }));
    connection.handleText('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"take_snapshot"}}');
    await settled();
    expect(out).toHaveLength(1);
    expect(out[0]?.message).toMatchObject({ id: 7, error: { data: { code: 'response_too_large' } } });
    expect(JSON.stringify(out[0]?.message)).toContain('tools/call take_snapshot');
  });

  it('answers an unreadable message with the id from its head, or null', () => {
    const { connection, out } = serve(() => null);
    connection.handleUnreadable(new TabmuxError('line_too_long', 'too long'), '{"jsonrpc":"2.0","id":12,"method":"x","params":{"pad":"xxx');
    connection.handleUnreadable(new TabmuxError('line_too_long', 'too long'), '{"jsonrpc":"2.0","method":"x","params":{"pad":"xxx');
    expect(out.map((entry) => entry.message)).toMatchObject([
      { id: 12, error: { data: { code: 'line_too_long' } } },
      { id: null, error: { data: { code: 'line_too_long' } } },
    ]);
  });

  it('answers malformed messages and sends events as events', () => {
    const { connection, out } = serve(() => null);
    connection.handleText('{nope');
    connection.handleText('{"jsonrpc":"2.0","id":3}');
    connection.notify('tabmux/event', { type: 'queue' });
    connection.notify('tabmux/event', { pad: 'y'.repeat(2000) });
    expect(out).toMatchObject([
      { kind: 'reply', message: { id: null, error: { data: { code: 'parse_error' } } } },
      { kind: 'reply', message: { id: 3, error: { data: { code: 'invalid_request' } } } },
      { kind: 'event', message: { method: 'tabmux/event', params: { type: 'queue' } } },
    ]);
  });

  it('says when every request handed on so far has been answered', async () => {
    const release: (() => void)[] = [];
    const out: unknown[] = [];
    const connection = new RpcServerConnection({
      write: (text) => out.push(JSON.parse(text)),
      dispatch: (request) => (request.method === 'slow' ? new Promise((resolve) => release.push(() => resolve('late'))) : Promise.resolve('now')),
      logger: Logger.silent(),
      maxMessageBytes: 1000,
    });
    await connection.whenAnswered();
    connection.handleText('{"jsonrpc":"2.0","id":1,"method":"slow"}');
    connection.handleText('{"jsonrpc":"2.0","id":2,"method":"slow"}');
    let answered = false;
    void connection.whenAnswered().then(() => {
      answered = true;
    });
    release.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answered).toBe(false);
    release.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answered).toBe(true);
    // Both replies were written before it said so.
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'late' },
      { jsonrpc: '2.0', id: 2, result: 'late' },
    ]);
  });
});
