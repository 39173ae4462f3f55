import { describe, expect, it } from 'vitest';
import { JSONRPC_TABMUX_ERROR } from '../../shared/errors.js';
import { PROTOCOL_VERSION } from '../../shared/protocol.js';
import { RawConnection, tabmuxCode, toolText } from '../helpers/RawConnection.js';
import { useBadClientRig } from '../helpers/badClientRig.js';
import { waitUntil as until } from '../helpers/waitFor.js';

/**
 * Clients that break the handshake, the session rules or the connection itself (no hello, wrong protocol version,
 * dead sessions, double binds, hanging up mid-call or without a word): each gets a clear refusal or is cleaned up
 * after, and the daemon and other sessions carry on. Malformed input is in robustnessMalformed.test.ts.
 */

describe('daemon robustness against bad clients', () => {
  const rig = useBadClientRig();
  const { connect } = rig;

  it('refuses any request before tabmux/hello', async () => {
    const connection = await connect(false);
    for (const method of ['tabmux/status', 'tabmux/session.create', 'tools/list']) {
      const reply = await connection.request(method, {});
      expect(reply.error?.code).toBe(JSONRPC_TABMUX_ERROR);
      expect(tabmuxCode(reply)).toBe('hello_required');
      expect(reply.error?.message).toContain(`protocolVersion ${PROTOCOL_VERSION}`);
    }
    const hello = await connection.request('tabmux/hello', { protocolVersion: PROTOCOL_VERSION });
    expect(hello.result).toMatchObject({ protocolVersion: PROTOCOL_VERSION, profile: 'default' });
    expect((await connection.status()).state).toBe('ready');
  });

  it('names the side to upgrade on a protocol version mismatch', async () => {
    const connection = await connect(false);
    const newer = await connection.request('tabmux/hello', { protocolVersion: PROTOCOL_VERSION + 1 });
    expect(tabmuxCode(newer)).toBe('protocol_mismatch');
    expect(newer.error?.message).toMatch(/upgrade the daemon/);
    const older = await connection.request('tabmux/hello', { protocolVersion: PROTOCOL_VERSION - 1 });
    expect(tabmuxCode(older)).toBe('protocol_mismatch');
    expect(older.error?.message).toMatch(/upgrade this client/);
    // A failed hello does not count as one.
    expect(tabmuxCode(await connection.request('tabmux/status'))).toBe('hello_required');
    const noVersion = await connection.request('tabmux/hello', {});
    expect(tabmuxCode(noVersion)).toBe('invalid_params');
    expect((await connection.request('tabmux/hello', { protocolVersion: PROTOCOL_VERSION })).error).toBeUndefined();
    expect((await connection.status()).state).toBe('ready');
  });

  it('tells unknown, closed and expired sessions apart', async () => {
    const connection = await connect();
    const unknown = await connection.request('tabmux/session.bind', { session: 'sess-0123456789abcdef' });
    expect(tabmuxCode(unknown)).toBe('unknown_session');
    expect(unknown.error?.message).toMatch(/unknown session sess-0123456789abcdef/);

    const closedId = ((await connection.request('tabmux/session.create', {})).result as { id: string }).id;
    expect((await connection.request('tabmux/session.close', { session: closedId })).error).toBeUndefined();
    const closed = await connection.request('tabmux/session.bind', { session: closedId });
    expect(tabmuxCode(closed)).toBe('session_closed');
    expect(closed.error?.message).toMatch(/was closed/);
    const closedCall = await connection.request('tabmux/call', { session: closedId, name: 'take_snapshot' });
    expect(toolText(closedCall)).toEqual({ text: expect.stringMatching(/was closed/) as unknown, isError: true });

    const expiredId = ((await connection.request('tabmux/session.create', {})).result as { id: string }).id;
    const reaped = rig.td.daemon.router.reap(Date.now() + 10 * 3600_000);
    expect(reaped).toContain(expiredId);
    expect(reaped).not.toContain(rig.good.id);
    const expired = await connection.request('tabmux/session.bind', { session: expiredId });
    expect(tabmuxCode(expired)).toBe('session_expired');
    expect(expired.error?.message).toMatch(/expired/);
    const expiredCall = await connection.request('tabmux/call', { session: expiredId, name: 'take_snapshot' });
    expect(toolText(expiredCall)).toEqual({ text: expect.stringMatching(/expired/) as unknown, isError: true });
    // The connection is still unbound and usable for a fresh session.
    const freshId = ((await connection.request('tabmux/session.create', {})).result as { id: string }).id;
    expect((await connection.request('tabmux/session.bind', { session: freshId })).error).toBeUndefined();
    expect((await connection.request('tabmux/session.close', { session: freshId })).error).toBeUndefined();
  });

  it('refuses a double bind until the first connection goes away', async () => {
    const first = await connect();
    const second = await connect();
    const id = ((await first.request('tabmux/session.create', { label: 'contested' })).result as { id: string }).id;
    expect((await first.request('tabmux/session.bind', { session: id })).error).toBeUndefined();
    // Binding again on the same connection is harmless; binding another session there is refused.
    expect((await first.request('tabmux/session.bind', { session: id })).error).toBeUndefined();
    expect(tabmuxCode(await first.request('tabmux/session.bind', { session: rig.good.id }))).toBe('already_bound');

    const refused = await second.request('tabmux/session.bind', { session: id });
    expect(tabmuxCode(refused)).toBe('session_owned');
    expect(refused.error?.message).toMatch(/already bound/);

    first.destroy();
    await until(async () => (await second.status()).sessions.find((session) => session.id === id)?.owned === false, 'the session to be released');
    expect((await second.request('tabmux/session.bind', { session: id })).error).toBeUndefined();
    const snapshot = await second.request('tools/call', { name: 'take_snapshot', arguments: {} });
    expect(toolText(snapshot)).toEqual({ text: expect.stringContaining('RootWebArea') as unknown, isError: false });
    expect((await second.request('tabmux/session.close', { session: id })).error).toBeUndefined();
  });

  it('drops the queued calls of a client that disconnects mid-call, and other sessions carry on', async () => {
    const leaver = await connect();
    const id = ((await leaver.request('tabmux/session.create', { label: 'leaver' })).result as { id: string }).id;
    expect((await leaver.request('tabmux/session.bind', { session: id })).error).toBeUndefined();
    // Opens the session's page, so the slow call below is all upstream time.
    expect(toolText(await leaver.request('tools/call', { name: 'take_snapshot', arguments: {} })).isError).toBe(false);

    const slow = { name: 'evaluate_script', arguments: { function: 'async () => { await new Promise((r) => setTimeout(r, 1500)); return "slow done"; }' } };
    await leaver.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: slow })}\n`);
    await leaver.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'behind', method: 'tools/call', params: { name: 'take_snapshot', arguments: {} } })}\n`);

    const watcher = await connect();
    await until(async () => {
      const mine = (await watcher.status()).queue.filter((entry) => entry.sessionId === id);
      return mine.some((entry) => entry.state === 'running' && entry.tool === 'evaluate_script') && mine.some((entry) => entry.state === 'queued' && entry.tool === 'take_snapshot');
    }, 'the slow call to run with another queued behind it');

    // Another session calls while the slow one runs; its call waits its turn and succeeds.
    const during = rig.good.text('take_snapshot');
    leaver.destroy();

    await until(async () => !(await watcher.status()).queue.some((entry) => entry.sessionId === id && entry.state === 'queued'), 'the queued call to be dropped', 1000);
    const afterDrop = await watcher.status();
    expect(afterDrop.sessions.find((session) => session.id === id)?.owned).toBe(false);
    expect(await during).toContain('RootWebArea');
    await until(async () => (await watcher.status()).queue.length === 0, 'the queue to empty');
    expect(await rig.good.text('take_snapshot')).toContain('RootWebArea');

    // The abandoned session is free for another client, and its dropped snapshot never ran (still epoch 1).
    const info = (await watcher.status()).sessions.find((session) => session.id === id);
    expect(info).toMatchObject({ owned: false, queued: 0, running: 0, epoch: 1 });
    expect((await watcher.request('tabmux/session.bind', { session: id })).error).toBeUndefined();
    expect((await watcher.request('tabmux/session.close', { session: id })).error).toBeUndefined();
  });

  it('keeps serving many connections that open and vanish without a word', async () => {
    const sockets = await Promise.all(Array.from({ length: 20 }, () => RawConnection.open(rig.td.daemon.socketPath)));
    await Promise.all(sockets.map((connection, index) => connection.write(index % 2 === 0 ? '{"jsonrpc":"2.0","id":1,"method":"tabmux/hel' : 'garbage\n')));
    for (const connection of sockets) {
      connection.destroy();
    }
    const connection = await connect();
    expect((await connection.status()).state).toBe('ready');
  });
});
