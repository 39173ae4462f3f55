import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Logger } from '../platform/Logger.js';
import type { PeerService } from './PeerService.js';
import { SocketServer } from './SocketServer.js';

const BIG = 4 * 1024 * 1024;

/** Requests the service has been handed, in order. */
const handed: string[] = [];

/** Answers `big` with a reply far larger than a socket's buffer, `never` not at all. */
const service: PeerService = {
  open: () => ({
    dispatch: (request) => {
      handed.push(request.method);
      return request.method === 'never' ? new Promise(() => undefined) : new Promise((resolve) => setTimeout(() => resolve('x'.repeat(BIG)), 50));
    },
    close: () => undefined,
  }),
};

/** Resolves once the service has been handed `count` requests in all. */
async function handedOn(count: number): Promise<void> {
  while (handed.length < count) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const dirs: string[] = [];
const sockets: Socket[] = [];

afterEach(() => {
  handed.length = 0;
  sockets.splice(0).forEach((socket) => socket.destroy());
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

async function serve(): Promise<{ server: SocketServer; connect: () => Promise<Socket> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tmx-drain-'));
  dirs.push(dir);
  const path = join(dir, 'd.sock');
  const server = await SocketServer.listen(path, service, Logger.silent(), { maxResponseBytes: 2 * BIG, maxEventBacklogBytes: 1024 * 1024 });
  const connect = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = createConnection(path, () => resolve(socket));
      socket.once('error', reject);
      sockets.push(socket);
    });
  return { server, connect };
}

/** Everything the socket receives until the server closes it. */
function received(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8'))));
}

describe('SocketServer.drain', () => {
  it('waits for the answers under way and for them to leave, so the close after it cuts nothing off', async () => {
    const { server, connect } = await serve();
    const client = await connect();
    const all = received(client);
    // The client reads nothing for a while: the reply cannot all leave before it does.
    client.pause();
    client.write('{"jsonrpc":"2.0","id":1,"method":"big"}\n');
    await handedOn(1);
    let drained: boolean | undefined;
    const draining = server.drain(10_000).then((done) => (drained = done));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(drained).toBeUndefined();
    client.resume();
    expect(await draining).toBe(true);
    await server.close();
    const text = await all;
    expect(text.endsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 1, result: 'x'.repeat(BIG) });
  });

  it('gives up at its deadline on an answer that does not come, and takes no new connection meanwhile', async () => {
    const { server, connect } = await serve();
    const client = await connect();
    client.write('{"jsonrpc":"2.0","id":1,"method":"never"}\n');
    await handedOn(1);
    const draining = server.drain(500);
    await expect(connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(await draining).toBe(false);
    await server.close();
  });

  it('is done at once with no request waiting', async () => {
    const { server, connect } = await serve();
    await connect();
    expect(await server.drain(10_000)).toBe(true);
    await server.close();
  });
});
