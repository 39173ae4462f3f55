import { createConnection, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JSONRPC_TABMUX_ERROR } from '../../shared/errors.js';
import type { DaemonStatus } from '../../shared/model.js';
import { MAX_REQUEST_LINE_BYTES } from '../../electron/core/transport/socketLimits.js';
import { PROTOCOL_VERSION } from '../../shared/protocol.js';
import { isRecord } from '../../shared/isRecord.js';
import { startTestDaemon, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';
import { waitUntil as until } from '../helpers/waitFor.js';

/**
 * Bad input over the raw socket: every abuse gets a clear error reply, the offending connection keeps serving where
 * that makes sense, and the daemon and other sessions carry on.
 */

interface Message {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { code: string } };
  method?: string;
}

/** A socket client that writes bytes as they are and collects every newline-delimited reply. */
class RawConnection {
  readonly #received: Message[] = [];
  readonly #waiters: { match: (message: Message) => boolean; resolve: (message: Message) => void }[] = [];
  #buffer = '';
  #nextId = 1000;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let newline = this.#buffer.indexOf('\n');
      while (newline !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        this.#deliver(JSON.parse(line) as Message);
        newline = this.#buffer.indexOf('\n');
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
    });
  }

  static open(path: string): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ path });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** A connection that already said a valid hello. */
  static async hello(path: string): Promise<RawConnection> {
    const connection = await RawConnection.open(path);
    const reply = await connection.request('tabmux/hello', { protocolVersion: PROTOCOL_VERSION, client: { name: 'raw' } });
    expect(reply.error).toBeUndefined();
    return connection;
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** The next reply that matches, whether it arrived already or arrives within the timeout. */
  next(match: (message: Message) => boolean = () => true, timeoutMs = 15_000): Promise<Message> {
    const index = this.#received.findIndex(match);
    if (index !== -1) {
      const [message] = this.#received.splice(index, 1);
      return Promise.resolve(message!);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (message: Message) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`no matching reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Sends a request with a fresh id and waits for the reply that carries it. */
  async request(method: string, params?: unknown, extra: Record<string, unknown> = {}): Promise<Message> {
    const id = this.#nextId++;
    await this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params, ...extra })}\n`);
    return this.next((message) => message.id === id);
  }

  async status(): Promise<DaemonStatus> {
    const reply = await this.request('tabmux/status');
    expect(reply.error).toBeUndefined();
    return reply.result as DaemonStatus;
  }

  destroy(): void {
    this.socket.destroy();
  }

  #deliver(message: Message): void {
    const index = this.#waiters.findIndex((waiter) => waiter.match(message));
    if (index === -1) {
      this.#received.push(message);
      return;
    }
    const [waiter] = this.#waiters.splice(index, 1);
    waiter!.resolve(message);
  }
}

function tabmuxCode(message: Message): string | undefined {
  return message.error?.data?.code;
}

function toolText(message: Message): { text: string; isError: boolean } {
  expect(message.error).toBeUndefined();
  const result = message.result;
  if (!isRecord(result) || !Array.isArray(result['content'])) {
    throw new Error(`not a tool result: ${JSON.stringify(message)}`);
  }
  const text = result['content']
    .filter(isRecord)
    .map((item) => (typeof item['text'] === 'string' ? item['text'] : ''))
    .join('\n');
  return { text, isError: result['isError'] === true };
}


describe('daemon robustness against bad clients', () => {
  let td: TestDaemon;
  let good: BoundSession;
  const open: RawConnection[] = [];

  const connect = async (hello = true): Promise<RawConnection> => {
    const connection = hello ? await RawConnection.hello(td.daemon.socketPath) : await RawConnection.open(td.daemon.socketPath);
    open.push(connection);
    return connection;
  };

  beforeAll(async () => {
    td = await startTestDaemon();
    good = await td.session('good');
    expect(await good.text('take_snapshot')).toContain('RootWebArea');
  });

  afterAll(async () => {
    for (const connection of open) {
      connection.destroy();
    }
    await td.stop();
  });

  afterEach(async () => {
    // Whatever the test did, the daemon still answers a new client and a good session still works.
    const probe = await connect();
    const status = await probe.status();
    expect(status.state).toBe('ready');
    expect(status.sessions.find((session) => session.id === good.id)?.owned).toBe(true);
    expect(await good.text('take_snapshot')).toContain('RootWebArea');
    for (const connection of open.splice(0)) {
      connection.destroy();
    }
  });

  it('answers a malformed JSON line with -32700 and keeps the connection', async () => {
    const connection = await connect();
    await connection.write('{"jsonrpc": "2.0", "id": 1, "method": \n');
    const reply = await connection.next();
    expect(reply.id).toBeNull();
    expect(reply.error?.code).toBe(-32700);
    expect(tabmuxCode(reply)).toBe('parse_error');
    expect(reply.error?.message).toMatch(/not valid JSON/);
    expect((await connection.status()).state).toBe('ready');
  });

  it('answers a non-object or a message without jsonrpc with invalid request', async () => {
    const connection = await connect();
    await connection.write('[1, 2, 3]\n');
    const array = await connection.next();
    expect(array.error?.code).toBe(-32600);
    expect(tabmuxCode(array)).toBe('invalid_request');
    expect(array.error?.message).toMatch(/JSON object/);

    await connection.write('42\n');
    expect(tabmuxCode(await connection.next())).toBe('invalid_request');

    await connection.write(`${JSON.stringify({ id: 7, method: 'tabmux/status' })}\n`);
    const noVersion = await connection.next();
    expect(noVersion.id).toBe(7);
    expect(noVersion.error?.code).toBe(-32600);
    expect(noVersion.error?.message).toMatch(/jsonrpc/);

    await connection.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 12 })}\n`);
    const badMethod = await connection.next();
    expect(badMethod.id).toBe(8);
    expect(tabmuxCode(badMethod)).toBe('invalid_request');
    expect((await connection.status()).state).toBe('ready');
  });

  it('answers an unknown method with -32601', async () => {
    const connection = await connect();
    const reply = await connection.request('tabmux/no.such.method', {});
    expect(reply.error?.code).toBe(-32601);
    expect(tabmuxCode(reply)).toBe('unknown_method');
    expect(reply.error?.message).toContain('tabmux/no.such.method');
    const mcp = await connection.request('resources/list', {});
    expect(mcp.error?.code).toBe(-32601);
    expect((await connection.status()).state).toBe('ready');
  });

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

  it('answers invalid UTF-8 with a parse error and keeps the connection', async () => {
    const connection = await connect();
    await connection.write(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
    const reply = await connection.next();
    expect(reply.error?.code).toBe(-32700);
    expect(reply.error?.message).toMatch(/UTF-8/);
    expect((await connection.status()).state).toBe('ready');
  });

  it('reassembles requests split across writes, including inside a multi-byte character, and accepts CRLF', async () => {
    const connection = await connect();
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'split', method: 'tabmux/session.create', params: { label: 'größe' } })}\r\n`);
    const cut = bytes.indexOf(Buffer.from('ö')) + 1;
    await connection.write(bytes.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await connection.write(bytes.subarray(cut));
    const reply = await connection.next((message) => message.id === 'split');
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({ label: 'größe' });
    const id = (reply.result as { id: string }).id;
    expect((await connection.request('tabmux/session.close', { session: id })).error).toBeUndefined();
  });

  it('drops a line over the size limit with line_too_long and keeps the connection', async () => {
    const connection = await connect();
    const huge = `{"jsonrpc":"2.0","id":1,"method":"tabmux/status","params":{"pad":"${'x'.repeat(MAX_REQUEST_LINE_BYTES + 1024)}"}}\n`;
    await connection.write(huge);
    const reply = await connection.next();
    // The id is read from the head of the dropped line, so the client can match the error to its request.
    expect(reply.id).toBe(1);
    expect(tabmuxCode(reply)).toBe('line_too_long');
    expect(reply.error?.message).toContain(String(MAX_REQUEST_LINE_BYTES));
    // The rest of that line was discarded, not parsed as a request: exactly one error came back.
    expect((await connection.status()).state).toBe('ready');
    await expect(connection.next(() => true, 300)).rejects.toThrow(/no matching reply/);
    // A line just under the limit is still read and answered.
    const big = await connection.request('tabmux/session.create', { label: 'y'.repeat(MAX_REQUEST_LINE_BYTES - 200) });
    expect(tabmuxCode(big)).toBe('invalid_params');
    expect(big.error?.message).toMatch(/label/);
  });

  it('survives deeply nested JSON', async () => {
    const connection = await connect();
    const depth = 200_000;
    await connection.write(`${'['.repeat(depth)}\n`);
    expect(tabmuxCode(await connection.next())).toBe('parse_error');
    // Balanced nesting either parses (and is not a request) or is refused as too deep; both are answered.
    await connection.write(`${'['.repeat(depth)}${']'.repeat(depth)}\n`);
    expect(['invalid_request', 'parse_error']).toContain(tabmuxCode(await connection.next()));
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    await connection.write(`{"jsonrpc":"2.0","id":"deep","method":"tabmux/status","params":${nested}}\n`);
    const asParams = await connection.next((message) => message.id === 'deep' || message.id === null);
    expect(['invalid_params', 'parse_error']).toContain(tabmuxCode(asParams));
    expect((await connection.status()).state).toBe('ready');
  });

  it('answers deeply nested tool arguments with a tool error', async () => {
    const connection = await connect();
    const created = await connection.request('tabmux/session.create', { label: 'deep' });
    const id = (created.result as { id: string }).id;
    expect((await connection.request('tabmux/session.bind', { session: id })).error).toBeUndefined();
    const depth = 100_000;
    const objects = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const arrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const requests = [
      `{"jsonrpc":"2.0","id":"deep1","method":"tools/call","params":{"name":"click","arguments":{"uid":${objects}}}}`,
      `{"jsonrpc":"2.0","id":"deep2","method":"tabmux/call","params":{"session":"${id}","name":"evaluate_script","arguments":{"function":"() => 1","args":${arrays}}}}`,
    ];
    for (const [index, request] of requests.entries()) {
      await connection.write(`${request}\n`);
      const reply = await connection.next((message) => message.id === `deep${index + 1}`);
      expect(toolText(reply)).toEqual({ text: expect.stringMatching(/^Error: /) as unknown, isError: true });
    }
    expect((await connection.status()).state).toBe('ready');
    expect((await connection.request('tabmux/session.close', { session: id })).error).toBeUndefined();
  });

  it('answers wrong param types with invalid_params', async () => {
    const connection = await connect();
    const reply = await connection.request('tabmux/session.bind', { session: 5 });
    expect(reply.error?.code).toBe(-32602);
    expect(tabmuxCode(reply)).toBe('invalid_params');
    expect(reply.error?.message).toMatch(/session/);
    expect(tabmuxCode(await connection.request('tabmux/session.attach', { session: good.id, pageId: 'one' }))).toBe('invalid_params');
    expect(tabmuxCode(await connection.request('tabmux/session.create', { label: 'x'.repeat(10_000) }))).toBe('invalid_params');
    expect(tabmuxCode(await connection.request('tabmux/session.close', 'sess-0000000000000000'))).toBe('invalid_params');
    // A tool call on a connection that is not bound is refused, and malformed tools/call params are explained.
    expect(tabmuxCode(await connection.request('tools/call', { name: 'take_snapshot' }))).toBe('not_bound');
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
    const reaped = td.daemon.router.reap(Date.now() + 10 * 3600_000);
    expect(reaped).toContain(expiredId);
    expect(reaped).not.toContain(good.id);
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
    expect(tabmuxCode(await first.request('tabmux/session.bind', { session: good.id }))).toBe('already_bound');

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
    const during = good.text('take_snapshot');
    leaver.destroy();

    await until(async () => !(await watcher.status()).queue.some((entry) => entry.sessionId === id && entry.state === 'queued'), 'the queued call to be dropped', 1000);
    const afterDrop = await watcher.status();
    expect(afterDrop.sessions.find((session) => session.id === id)?.owned).toBe(false);
    expect(await during).toContain('RootWebArea');
    await until(async () => (await watcher.status()).queue.length === 0, 'the queue to empty');
    expect(await good.text('take_snapshot')).toContain('RootWebArea');

    // The abandoned session is free for another client, and its dropped snapshot never ran (still epoch 1).
    const info = (await watcher.status()).sessions.find((session) => session.id === id);
    expect(info).toMatchObject({ owned: false, queued: 0, running: 0, epoch: 1 });
    expect((await watcher.request('tabmux/session.bind', { session: id })).error).toBeUndefined();
    expect((await watcher.request('tabmux/session.close', { session: id })).error).toBeUndefined();
  });

  it('keeps serving many connections that open and vanish without a word', async () => {
    const sockets = await Promise.all(Array.from({ length: 20 }, () => RawConnection.open(td.daemon.socketPath)));
    await Promise.all(sockets.map((connection, index) => connection.write(index % 2 === 0 ? '{"jsonrpc":"2.0","id":1,"method":"tabmux/hel' : 'garbage\n')));
    for (const connection of sockets) {
      connection.destroy();
    }
    const connection = await connect();
    expect((await connection.status()).state).toBe('ready');
  });
});
