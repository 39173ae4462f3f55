import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { Logger } from '../platform/Logger.js';
import { MAX_REQUEST_LINE_BYTES } from '../transport/socketLimits.js';
import { DaemonLane, type LaneReply } from './DaemonLane.js';

/**
 * A daemon socket that answers the hello and the bind as the daemon does, then lets the test see the lines it is
 * sent and write any bytes back.
 */
async function fakeDaemon(options: { refuseBind?: boolean } = {}): Promise<{ path: string; server: Server; peer: () => Promise<{ socket: Socket; lines: string[] }> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tabmux-lane-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'd.sock');
  let connected: (peer: { socket: Socket; lines: string[] }) => void = () => undefined;
  const ready = new Promise<{ socket: Socket; lines: string[] }>((resolve) => (connected = resolve));
  const server = createServer((socket) => {
    const lines: string[] = [];
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        const message = JSON.parse(line) as { id?: number; method: string };
        if (message.method === 'tabmux/hello') {
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, version: '0', profile: 'p', pid: 1 } })}\n`);
        } else if (message.method === 'tabmux/session.bind') {
          const reply = options.refuseBind
            ? { jsonrpc: '2.0', id: message.id, error: new TabmuxError('session_owned', 'session sess-1 is already bound to another client').toWire() }
            : { jsonrpc: '2.0', id: message.id, result: { id: 'sess-1', label: null } };
          socket.write(`${JSON.stringify(reply)}\n`);
          connected({ socket, lines });
        } else {
          lines.push(line);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  cleanups.push(() => server.close());
  return { path, server, peer: () => ready };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) {
    cleanup();
  }
});

function collector(): { replies: LaneReply[]; done: (reply: LaneReply) => void; next: () => Promise<LaneReply> } {
  const replies: LaneReply[] = [];
  let wake: (() => void) | undefined;
  return {
    replies,
    done: (reply) => {
      replies.push(reply);
      wake?.();
    },
    next: async () => {
      while (replies.length === 0) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
      return replies.shift() as LaneReply;
    },
  };
}

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('DaemonLane', () => {
  it('sends calls as written and matches each reply line to its call by the id the daemon wrote first', async () => {
    const daemon = await fakeDaemon();
    const lane = await DaemonLane.open(daemon.path, 'sess-1', Logger.silent());
    const { socket, lines } = await daemon.peer();
    const first = collector();
    const second = collector();
    const third = collector();
    expect(lane.call(7, Buffer.from('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a"}}'), first.done)).toBe(true);
    expect(lane.call('x"y', Buffer.from('{"jsonrpc":"2.0","id":"x\\"y","method":"tools/call","params":{"name":"b"}}'), second.done)).toBe(true);
    expect(lane.call('s', Buffer.from('{"id":"s","jsonrpc":"2.0","method":"tools/call","params":{"name":"c"}}'), third.done)).toBe(true);
    // An id already on the lane is not taken twice, nor a line longer than the daemon reads.
    expect(lane.call(7, Buffer.from('{}'), first.done)).toBe(false);
    expect(lane.call(8, Buffer.alloc(MAX_REQUEST_LINE_BYTES, 0x20), first.done)).toBe(false);
    await until(() => lines.length === 3);
    expect(lines[0]).toBe('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a"}}');

    // Out of order, one reply split across writes, two in one write; page text that looks like a reply stays inside its string.
    const forged = JSON.stringify({ jsonrpc: '2.0', id: 's', result: { content: [{ type: 'text', text: '\n{"jsonrpc":"2.0","id":7,"result":{}}\n' }] } });
    const toSeven = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'seven' }] } });
    const toQuoted = JSON.stringify({ jsonrpc: '2.0', id: 'x"y', error: new TabmuxError('stale_token', 'that token is from an older snapshot').toWire() });
    socket.write(forged.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write(`${forged.slice(20)}\n${toSeven}\n${toQuoted}\n`);
    expect((await third.next()).toString()).toBe(forged);
    expect((await first.next()).toString()).toBe(toSeven);
    const error = await second.next();
    expect(error).toBeInstanceOf(TabmuxError);
    expect(error).toMatchObject({ code: 'stale_token', message: 'that token is from an older snapshot' });
    lane.close();
  });

  it('forwards a cancellation, and answers the calls still on it when the daemon goes away', async () => {
    const daemon = await fakeDaemon();
    const lane = await DaemonLane.open(daemon.path, 'sess-1', Logger.silent());
    const { socket, lines } = await daemon.peer();
    const call = collector();
    lane.call(1, Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}'), call.done);
    lane.cancel(1);
    lane.cancel(99);
    await until(() => lines.length === 2);
    expect(JSON.parse(lines[1] ?? '')).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'the MCP client cancelled the call' } });
    socket.destroy();
    expect(await call.next()).toMatchObject({ code: 'daemon_not_running' });
    await until(() => !lane.open);
    expect(lane.call(2, Buffer.from('{}'), call.done)).toBe(false);
  });

  it('takes no call once abandoned, before its socket has closed, and answers the calls on it with the reason', async () => {
    const daemon = await fakeDaemon();
    const lane = await DaemonLane.open(daemon.path, 'sess-1', Logger.silent());
    const call = collector();
    lane.call(1, Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}'), call.done);
    lane.abandon(new TabmuxError('daemon_unresponsive', 'stopped answering'));
    expect(lane.open).toBe(false);
    expect(lane.call(2, Buffer.from('{}'), call.done)).toBe(false);
    expect(await call.next()).toMatchObject({ code: 'daemon_unresponsive' });
  });

  it('tells a call the daemon never got that it did not run, apart from one cut off after it was sent', async () => {
    const daemon = await fakeDaemon();
    const lane = await DaemonLane.open(daemon.path, 'sess-1', Logger.silent());
    const { socket, lines } = await daemon.peer();
    const sent = collector();
    lane.call(1, Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}'), sent.done);
    await until(() => lines.length === 1);
    // The daemon's end closes now; the lane sees it only when it next reads, and a call made before that (here, in
    // the same turn) is refused by the socket.
    socket.destroy();
    const unsent = collector();
    lane.call(2, Buffer.from('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}'), unsent.done);
    expect(await sent.next()).toMatchObject({ code: 'daemon_not_running' });
    expect(await unsent.next()).toMatchObject({ code: 'not_delivered' });
    expect(lane.open).toBe(false);
  });

  it('tells a call whose line the daemon never read, when it ended, that it did not run', async () => {
    const daemon = await fakeDaemon();
    const lane = await DaemonLane.open(daemon.path, 'sess-1', Logger.silent());
    const { socket } = await daemon.peer();
    const call = collector();
    // Written into the daemon's socket, and the daemon ends before it reads it (in this same turn).
    lane.call(3, Buffer.from('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"c"}}'), call.done);
    socket.destroy();
    expect(await call.next()).toMatchObject({ code: 'not_delivered' });
  });

  it('fails a call whose reply is over the size limit, and reads the next reply', async () => {
    const daemon = await fakeDaemon();
    const limit = process.env['TABMUX_MAX_RESPONSE_BYTES'];
    process.env['TABMUX_MAX_RESPONSE_BYTES'] = '4096';
    const lane = await DaemonLane.open(daemon.path, 'sess-1', Logger.silent()).finally(() => {
      if (limit === undefined) {
        delete process.env['TABMUX_MAX_RESPONSE_BYTES'];
      } else {
        process.env['TABMUX_MAX_RESPONSE_BYTES'] = limit;
      }
    });
    const { socket } = await daemon.peer();
    const big = collector();
    const small = collector();
    lane.call(1, Buffer.from('{}'), big.done);
    lane.call(2, Buffer.from('{}'), small.done);
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(10_000) }] } });
    socket.write(huge.slice(0, 3000));
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write(`${huge.slice(3000)}\n{"jsonrpc":"2.0","id":2,"result":{"content":[]}}\n`);
    expect(await big.next()).toMatchObject({ code: 'response_too_large' });
    expect((await small.next()).toString()).toBe('{"jsonrpc":"2.0","id":2,"result":{"content":[]}}');
    lane.close();
  });

  it('rejects with the daemon\'s error when the session cannot be bound', async () => {
    const daemon = await fakeDaemon({ refuseBind: true });
    await expect(DaemonLane.open(daemon.path, 'sess-1', Logger.silent())).rejects.toMatchObject({ code: 'session_owned' });
    await expect(DaemonLane.open(join(tmpdir(), 'tabmux-no-such-dir', 'd.sock'), 'sess-1', Logger.silent())).rejects.toMatchObject({ code: 'daemon_not_running' });
  });
});
