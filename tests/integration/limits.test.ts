import { createConnection, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_LINE_BYTES } from '../../electron/core/transport/socketLimits.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { PROTOCOL_VERSION } from '../../shared/protocol.js';
import { textOf } from '../../shared/toolResult.js';
import { bindSession, startTestDaemon, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';
import { runCli } from '../helpers/runCli.js';
import { waitUntil as until } from '../helpers/waitFor.js';

/**
 * Size limits and back-pressure against a real daemon: a reply over the limit is an error the caller gets (never a
 * wait without end), a request over the limit too, and a subscriber that stops reading is dropped without holding
 * up anyone else. The daemon's limits are lowered through the environment, as its documentation allows.
 */

const RESPONSE_LIMIT = 256 * 1024;
const BACKLOG_LIMIT = 16 * 1024;

const saved = { response: process.env['TABMUX_MAX_RESPONSE_BYTES'], backlog: process.env['TABMUX_MAX_EVENT_BACKLOG_BYTES'] };
let fixture: TestDaemon;

beforeAll(async () => {
  process.env['TABMUX_MAX_RESPONSE_BYTES'] = String(RESPONSE_LIMIT);
  process.env['TABMUX_MAX_EVENT_BACKLOG_BYTES'] = String(BACKLOG_LIMIT);
  fixture = await startTestDaemon();
});

afterAll(async () => {
  await fixture.stop();
  if (saved.response === undefined) {
    delete process.env['TABMUX_MAX_RESPONSE_BYTES'];
  } else {
    process.env['TABMUX_MAX_RESPONSE_BYTES'] = saved.response;
  }
  if (saved.backlog === undefined) {
    delete process.env['TABMUX_MAX_EVENT_BACKLOG_BYTES'];
  } else {
    process.env['TABMUX_MAX_EVENT_BACKLOG_BYTES'] = saved.backlog;
  }
});

/** An evaluate_script function whose result is a string of `length` characters. */
function bigString(length: number): Record<string, unknown> {
  return { function: `() => 'x'.repeat(${length})` };
}

async function toolError(session: BoundSession, tool: string, args: Record<string, unknown>): Promise<unknown> {
  return session.client.request('tools/call', { name: tool, arguments: args }).then(
    () => new Error(`${tool} succeeded, but its reply is over the limit`),
    (error: unknown) => error,
  );
}

describe('replies over the size limit', () => {
  it('answers evaluate_script and take_snapshot with response_too_large, and the daemon keeps serving', async () => {
    const session = await fixture.session('big');
    const other = await fixture.session('other');
    expect(await toolError(session, 'evaluate_script', bigString(RESPONSE_LIMIT + 1000))).toMatchObject({
      code: 'response_too_large',
      message: expect.stringContaining('evaluate_script') as unknown,
    });
    await session.text('evaluate_script', { function: `() => { document.body.textContent = 'y'.repeat(${RESPONSE_LIMIT + 1000}); return 'filled'; }` });
    expect(await toolError(session, 'take_snapshot', {})).toMatchObject({ code: 'response_too_large' });
    // The same connection and session, and every other session, go on working.
    expect(await session.text('evaluate_script', { function: '() => 6 * 7' })).toContain('42');
    expect(await other.text('evaluate_script', { function: '() => "still here"' })).toContain('still here');
  });

  it('fails a call whose reply is over the client limit instead of leaving it waiting', async () => {
    const control = await fixture.connect();
    const { id } = await control.call('tabmux/session.create', { label: 'small client' });
    const client = await DaemonClient.connect(fixture.daemon.socketPath, 'test', { maxResponseBytes: 64 * 1024 });
    try {
      await client.call('tabmux/session.bind', { session: id });
      const session = bindSession(client, id);
      // Under the daemon's limit, so it is sent, but over this client's.
      expect(await toolError(session, 'evaluate_script', bigString(100_000))).toMatchObject({ code: 'response_too_large' });
      expect(textOf(await session.call('evaluate_script', { function: '() => "after"' }))).toContain('after');
    } finally {
      client.close();
    }
  });

  it('reports response_too_large through tabmux mcp call', async () => {
    const control = await fixture.connect();
    const { id } = await control.call('tabmux/session.create', { label: 'cli' });
    const env = { TABMUX_HOME: fixture.home };
    const run = await runCli(['mcp', 'call', '--json', '--session', id, 'evaluate_script', JSON.stringify(bigString(RESPONSE_LIMIT + 1000))], env);
    expect(run.code).toBe(1);
    // With --json the error is the command's output, on stdout.
    expect((JSON.parse(run.stdout) as { error?: { code?: string } }).error?.code).toBe('response_too_large');
    const small = await runCli(['mcp', 'call', '--session', id, 'evaluate_script', JSON.stringify({ function: '() => "fits"' })], env);
    expect(small.code).toBe(0);
    expect(small.stdout).toContain('fits');
  });
});

describe('requests over the size limit', () => {
  it('answers the request itself with line_too_long and keeps the connection', async () => {
    const client = await fixture.connect();
    await expect(client.request('tabmux/session.create', { label: 'y'.repeat(MAX_REQUEST_LINE_BYTES + 10) })).rejects.toMatchObject({
      code: 'line_too_long',
      message: expect.stringContaining(String(MAX_REQUEST_LINE_BYTES)) as unknown,
    });
    expect((await client.call('tabmux/status')).state).toBe('ready');
  });
});

/** A raw connection that says hello and subscribes, and counts the bytes it reads. */
async function subscriber(path: string): Promise<{ socket: Socket; received: () => number; closed: () => boolean }> {
  const socket = createConnection({ path });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = 0;
  let closed = false;
  let text = '';
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      text += chunk.toString('utf8');
      // Ready once the subscribe call (id 2) is answered.
      if (text.includes('"id":2,')) {
        resolve();
      }
    });
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
  });
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tabmux/hello', params: { protocolVersion: PROTOCOL_VERSION } })}\n`);
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tabmux/subscribe' })}\n`);
  await answered;
  return { socket, received: () => received, closed: () => closed };
}

describe('back-pressure', () => {
  it('drops a subscriber that stops reading, without holding up other clients', async () => {
    const stalled = await subscriber(fixture.daemon.socketPath);
    stalled.socket.pause();
    const reader = await subscriber(fixture.daemon.socketPath);
    const worker = await fixture.connect();
    const label = 'z'.repeat(200);
    // Each session's life pushes events to both subscribers, until the daemon gives up on the one that does not read
    // (its socket buffers and backlog full). Far past what those hold, the daemon has failed to drop it.
    const dropped = (): boolean => fixture.warnings().some((line) => line.includes('stopped reading'));
    const ceiling = reader.received() + 16 * 1024 * 1024;
    while (!dropped()) {
      expect(reader.received(), 'events sent without the stalled subscriber being dropped').toBeLessThan(ceiling);
      const { id } = await worker.call('tabmux/session.create', { label });
      await worker.call('tabmux/session.close', { session: id });
    }
    expect((await worker.call('tabmux/status')).state).toBe('ready');
    // Reading again drains what was queued before the drop, then the end of the connection.
    stalled.socket.resume();
    await until(() => stalled.closed(), 'the daemon to drop the subscriber that stopped reading');
    expect(stalled.received()).toBeLessThan(reader.received());
    expect(reader.closed()).toBe(false);
    reader.socket.destroy();
  });
});
