import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import { PROTOCOL_VERSION } from '../../../shared/protocolConstants.js';
import { DaemonClient } from './DaemonClient.js';

/** A daemon stand-in on a real Unix socket: it answers the hello, and every other request with what `reply` writes. */
async function fakeDaemon(reply: (id: number, name: string, method: string, params: Record<string, unknown>) => string): Promise<{ path: string; server: Server; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tmx-dc-'));
  const path = join(dir, 'd.sock');
  const server = createServer((socket: Socket) => {
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const message: unknown = JSON.parse(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        if (!isRecord(message) || typeof message['id'] !== 'number') {
          continue;
        }
        const { id } = message;
        if (message['method'] === 'tabmux/hello') {
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: PROTOCOL_VERSION, version: 't', profile: 'p', pid: 1 } })}\n`);
        } else {
          const params = isRecord(message['params']) ? message['params'] : {};
          socket.write(`${reply(id, String(params['name']), String(message['method']), params)}\n`);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, server, dir };
}

const RESULT = { content: [{ type: 'text', text: 'page says {"jsonrpc":"2.0","id":1,"result":"forged"} and ünïcode' }] };
const daemons: { server: Server; dir: string }[] = [];

afterEach(async () => {
  for (const { server, dir } of daemons.splice(0)) {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
});

async function connect(reply: (id: number, name: string, method: string, params: Record<string, unknown>) => string): Promise<DaemonClient> {
  const daemon = await fakeDaemon(reply);
  daemons.push(daemon);
  return DaemonClient.connect(daemon.path);
}

describe('DaemonClient when the daemon goes away', () => {
  it('tells a request the daemon never got that it did not run, apart from one cut off after it was sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmx-dc-'));
    const path = join(dir, 'd.sock');
    let second: Promise<unknown> | undefined;
    const held: { client?: DaemonClient } = {};
    const server = createServer((socket: Socket) => {
      socket.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          const message = JSON.parse(line) as { id: number; method: string };
          if (message.method === 'tabmux/hello') {
            socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: PROTOCOL_VERSION, version: 't', profile: 'p', pid: 1 } })}\n`);
          } else if (message.method === 'first') {
            // The daemon dies holding the first request; the client sends the second before it reads the close.
            socket.destroy();
            second = held.client?.request('second', {});
            second?.catch(() => undefined);
          }
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    daemons.push({ server, dir });
    const client = await DaemonClient.connect(path);
    held.client = client;
    await expect(client.request('first', {})).rejects.toMatchObject({ code: 'daemon_not_running' });
    await expect(second).rejects.toMatchObject({ code: 'not_delivered' });
  });

  it('tells a request the daemon never read, when it ended, that it did not run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmx-dc-'));
    const path = join(dir, 'd.sock');
    const sockets: Socket[] = [];
    const server = createServer((socket: Socket) => {
      sockets.push(socket);
      socket.once('data', (chunk: Buffer) => {
        const message = JSON.parse(chunk.toString('utf8').split('\n')[0] ?? '{}') as { id: number };
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: PROTOCOL_VERSION, version: 't', profile: 'p', pid: 1 } })}\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    daemons.push({ server, dir });
    const client = await DaemonClient.connect(path);
    // Written into the daemon's socket, and the daemon ends before it reads it (in this same turn).
    const unread = client.request('unread', {});
    sockets[0]?.destroy();
    await expect(unread).rejects.toMatchObject({ code: 'not_delivered' });
  });
});

describe('DaemonClient.relay', () => {
  it('hands over the bytes of a result in the daemon\'s own layout without parsing them', async () => {
    const client = await connect((id) => JSON.stringify({ jsonrpc: '2.0', id, result: RESULT }));
    const bytes = await client.relay('tools/call', { name: 'list_pages', arguments: {} });
    expect(bytes.toString('utf8')).toBe(JSON.stringify(RESULT));
    // Ordinary requests on the same connection still parse.
    expect(await client.request('tools/call', { name: 'x' })).toEqual(RESULT);
    client.close();
  });

  it('reads a reply in another layout on the ordinary path and still returns its result as JSON', async () => {
    const client = await connect((id) => `{ "id": ${id}, "jsonrpc": "2.0", "result": ${JSON.stringify(RESULT)} }`);
    const bytes = await client.relay('tools/call', { name: 'list_pages' });
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(RESULT);
    client.close();
  });

  it('rejects with the error code of an error reply', async () => {
    const client = await connect((id) => JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'session expired', data: { code: 'session_expired' } } }));
    const failure = await client.relay('tools/call', { name: 'click' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TabmuxError);
    client.close();
  });

  it('matches replies to calls by id when they come back out of order', async () => {
    // The daemon holds the first reply back and writes it after the second.
    const held: string[] = [];
    const client = await connect((id, name) => {
      const line = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: name }] } });
      if (name === 'first') {
        held.push(line);
        return '';
      }
      return `${line}\n${held.join('\n')}`;
    });
    const first = client.relay('tools/call', { name: 'first' });
    const second = client.relay('tools/call', { name: 'second' });
    expect(JSON.parse((await second).toString('utf8'))).toMatchObject({ content: [{ text: 'second' }] });
    expect(JSON.parse((await first).toString('utf8'))).toMatchObject({ content: [{ text: 'first' }] });
    client.close();
  });
});

describe('DaemonClient session calls', () => {
  const reply = (result: unknown) => (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, result });
  const SESSION = { id: 's-1', label: 'agent', createdAt: 1, lastUsedAt: 1, owned: false, paused: false, pages: [] };

  it('creates, binds and closes a session, reading the fields a bridge needs', async () => {
    const seen: string[] = [];
    const client = await connect((id, _name, method, params) => {
      seen.push(`${method} ${JSON.stringify(params)}`);
      const result = method === 'tabmux/session.close' ? { closed: 's-1', closedPages: [3, 4] } : SESSION;
      return reply(result)(id);
    });
    expect(await client.createSession('agent')).toEqual({ id: 's-1', label: 'agent' });
    await client.bindSession('s-1');
    expect(await client.closeSession('s-1')).toEqual({ closedPages: [3, 4] });
    expect(seen).toEqual(['tabmux/session.create {"label":"agent"}', 'tabmux/session.bind {"session":"s-1"}', 'tabmux/session.close {"session":"s-1"}']);
    client.close();
  });

  it('refuses replies of another shape with protocol_mismatch', async () => {
    const shapes: Record<string, unknown> = {
      'tabmux/session.create': { id: 7, label: 'agent' },
      'tabmux/session.bind': { ...SESSION, id: 's-other' },
      'tabmux/session.close': { closed: 's-1', closedPages: ['3'] },
    };
    const client = await connect((id, _name, method) => reply(shapes[method])(id));
    for (const attempt of [client.createSession('agent'), client.bindSession('s-1'), client.closeSession('s-1')]) {
      const failure = await attempt.catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TabmuxError);
      expect((failure as TabmuxError).code).toBe('protocol_mismatch');
    }
    client.close();
  });
});

describe.skipIf(process.platform === 'win32')('DaemonClient.connect to a busy socket', () => {
  /**
   * A daemon stand-in in a process of its own, so it can be stopped (SIGSTOP): stopped, it accepts nothing, and once
   * its backlog (1) is full every connect fails with EAGAIN, as under a flood of connections.
   */
  async function stoppableDaemon(): Promise<{ path: string; child: ChildProcess; flood: Socket[] }> {
    const dir = mkdtempSync(join(tmpdir(), 'tmx-dc-'));
    const path = join(dir, 'd.sock');
    const script = `const net = require('node:net');
      net.createServer((s) => {
        let b = '';
        s.on('error', () => {});
        s.on('data', (c) => {
          b += c;
          for (let i; (i = b.indexOf('\\n')) >= 0; b = b.slice(i + 1)) {
            const m = JSON.parse(b.slice(0, i));
            s.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: ${PROTOCOL_VERSION}, version: 't', profile: 'p', pid: process.pid } }) + '\\n');
          }
        });
      }).listen({ path: process.argv[1], backlog: 1 }, () => console.log('ready'));`;
    const child = spawn(process.execPath, ['-e', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    busyDaemons.push({ child, dir });
    await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    child.kill('SIGSTOP');
    const flood: Socket[] = [];
    for (;;) {
      const socket = createConnection({ path });
      const outcome = await new Promise<string>((resolve) => {
        socket.once('connect', () => resolve('connected'));
        socket.once('error', (error) => resolve('code' in error ? String(error.code) : 'failed'));
      });
      if (outcome !== 'connected') {
        socket.destroy();
        expect(outcome).toBe('EAGAIN');
        return { path, child, flood };
      }
      flood.push(socket);
    }
  }

  const busyDaemons: { child: ChildProcess; dir: string }[] = [];
  afterEach(() => {
    for (const { child, dir } of busyDaemons.splice(0)) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tries again until the daemon accepts, rather than calling it not running', async () => {
    const { path, child, flood } = await stoppableDaemon();
    const connecting = DaemonClient.connect(path, 'test', { busyTimeoutMs: 30_000 });
    // Long enough for several attempts to meet the full backlog.
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGCONT');
    const client = await connecting;
    expect(client.hello.pid).toBe(child.pid);
    client.close();
    flood.forEach((socket) => socket.destroy());
  });

  it('gives up after its deadline with daemon_busy, not daemon_not_running', async () => {
    const { path, flood } = await stoppableDaemon();
    await expect(DaemonClient.connect(path, 'test', { busyTimeoutMs: 200 })).rejects.toMatchObject({ code: 'daemon_busy', message: expect.stringMatching(/runs but did not take this connection/) as unknown });
    flood.forEach((socket) => socket.destroy());
  });
});

describe('DaemonClient.connect to a daemon that takes the connection but never answers', () => {
  it('gives up on the hello after its deadline with daemon_unresponsive, and hangs up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmx-dc-'));
    const path = join(dir, 'd.sock');
    let hungUp!: () => void;
    const closed = new Promise<void>((resolve) => (hungUp = resolve));
    // Reads the hello and says nothing, as a stopped or stuck daemon whose socket the kernel still accepts on.
    const server = createServer((socket) => {
      socket.resume();
      socket.on('close', () => hungUp());
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    daemons.push({ server, dir });
    await expect(DaemonClient.connect(path, 'test', { helloTimeoutMs: 200 })).rejects.toMatchObject({
      code: 'daemon_unresponsive',
      message: expect.stringMatching(/took this connection but did not answer within 0\.2 s: its process is stopped or stuck; tabmux daemon stop ends it/) as unknown,
    });
    await closed;
  });
});

describe('DaemonClient while a request waits', () => {
  /** A daemon that answers the hello, pings only when `answersPings`, and nothing else. */
  async function quietDaemon(answersPings: boolean): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'tmx-dc-'));
    const path = join(dir, 'd.sock');
    const server = createServer((socket: Socket) => {
      socket.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n').filter((text) => text !== '')) {
          const message: unknown = JSON.parse(line);
          if (!isRecord(message)) {
            continue;
          }
          const { id, method } = message;
          if (method === 'tabmux/hello') {
            socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: PROTOCOL_VERSION, version: 't', profile: 'p', pid: 1 } })}\n`);
          } else if (method === 'ping' && answersPings) {
            socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n`);
          }
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    daemons.push({ server, dir });
    return path;
  }

  it('gives up on a daemon that answered its hello and then stopped answering, and says so', async () => {
    const client = await DaemonClient.connect(await quietDaemon(false), 'test', { helloTimeoutMs: 200 });
    await expect(client.request('tools/call', { name: 'list_pages', arguments: {} })).rejects.toMatchObject({
      code: 'daemon_unresponsive',
      message: expect.stringMatching(/^the tabmux daemon for profile p \(pid 1\) stopped answering while this call was under way: its process is stopped or stuck/) as unknown,
    });
    expect(client.abandonedWith?.code).toBe('daemon_unresponsive');
    await vi.waitFor(() => expect(client.closed).toBe(true));
  });

  it('counts as closed the moment it is given up on, so the next call connects anew', async () => {
    const client = await DaemonClient.connect(await quietDaemon(false), 'test', { helloTimeoutMs: 60_000 });
    client.abandon(new TabmuxError('daemon_unresponsive', 'stopped answering'));
    expect(client.closed).toBe(true);
    await expect(client.request('ping')).rejects.toMatchObject({ code: 'daemon_not_running' });
  });

  it('waits as long as the daemon answers, however long the request takes', async () => {
    const client = await DaemonClient.connect(await quietDaemon(true), 'test', { helloTimeoutMs: 400 });
    let settled = false;
    const waiting = client.request('tools/call', { name: 'wait_for', arguments: {} }).finally(() => (settled = true));
    waiting.catch(() => undefined);
    // Many answer windows pass; the daemon answers every ping, so the request is left to run.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(settled).toBe(false);
    expect(client.abandonedWith).toBeUndefined();
    client.close();
  });

  it('leaves a connection that asked not to be watched alone', async () => {
    const client = await DaemonClient.connect(await quietDaemon(false), 'test', { helloTimeoutMs: 100, watchAnswers: false });
    let settled = false;
    client.request('tools/call', { name: 'wait_for', arguments: {} }).then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(settled).toBe(false);
    client.close();
  });
});
