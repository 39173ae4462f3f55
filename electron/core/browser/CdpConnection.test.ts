import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { isLoopback, openCdpConnection } from './CdpConnection.js';

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) {
    socket.destroy();
  }
  for (const server of servers.splice(0)) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A loopback server that answers every WebSocket handshake with `reply`, or never answers when it is null. */
async function engine(reply: string | null): Promise<string> {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => {
      if (reply !== null) {
        socket.end(reply);
      }
    });
  });
  return `ws://127.0.0.1:${await listenOnLoopback(server)}/chromium?token=s3cret`;
}

/** Starts `server` on a free loopback port (closed after the test) and gives the port. */
async function listenOnLoopback(server: Server): Promise<number> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('no port');
  }
  return address.port;
}

async function failure(url: string, handshakeTimeoutMs = 5000): Promise<TabmuxError> {
  const error = await openCdpConnection(url, { shownUrl: 'ws://engine/chromium?token=redacted', handshakeTimeoutMs }).then(
    () => undefined,
    (thrown: unknown) => TabmuxError.from(thrown),
  );
  if (error === undefined) {
    throw new Error('the connection opened');
  }
  return error;
}

describe('openCdpConnection', () => {
  it('says an engine at its limit is busy (HTTP 429 or 503), showing only the redacted address', async () => {
    for (const status of ['429 Too Many Requests', '503 Service Unavailable']) {
      const error = await failure(await engine(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\n\r\n`));
      expect(error.code).toBe('browser_busy');
      expect(error.message).toContain(`HTTP ${status.slice(0, 3)}`);
      expect(error.message).toContain('retry in a moment');
      expect(error.message).not.toContain('s3cret');
    }
  });

  it('gives up on a handshake an engine keeps waiting (it queues sessions) with browser_busy, not a hang', async () => {
    const error = await failure(await engine(null), 300);
    expect(error.code).toBe('browser_busy');
    expect(error.message).toMatch(/did not accept the connection within/);
  });

  it('reports any other refusal as browser_unavailable', async () => {
    const error = await failure(await engine('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'));
    expect(error.code).toBe('browser_unavailable');
    expect(error.message).toContain('404');
    expect(error.message).not.toContain('s3cret');
  });
});

describe('frames to a loopback browser', () => {
  it('go with an all-zero mask: no proxy stands between, so nothing is copied to mask them', async () => {
    const frames: Buffer[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.once('data', (head: Buffer) => {
        const key = /Sec-WebSocket-Key: (\S+)/i.exec(head.toString('latin1'))?.[1] ?? '';
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
        socket.on('data', (frame: Buffer) => frames.push(frame));
      });
    });
    const connection = await openCdpConnection(`ws://127.0.0.1:${await listenOnLoopback(server)}/devtools/browser/x`);
    void connection.send('Browser.getVersion').catch(() => undefined);
    await expect.poll(() => frames.length).toBeGreaterThan(0);
    const [frame] = frames;
    // A masked text frame whose 4-byte mask key (after a 7-bit, 16-bit or 64-bit length) is all zeros.
    expect(frame?.[0]).toBe(0x81);
    const lengthCode = (frame?.[1] ?? 0) & 0x7f;
    expect((frame?.[1] ?? 0) & 0x80).toBe(0x80);
    const maskAt = lengthCode === 126 ? 4 : lengthCode === 127 ? 10 : 2;
    expect([...(frame?.subarray(maskAt, maskAt + 4) ?? [])]).toEqual([0, 0, 0, 0]);
    expect(frame?.subarray(maskAt + 4).toString('utf8')).toContain('"method":"Browser.getVersion"');
    connection.dispose();
  });

  it('are told apart from frames to any other host, which keep a random mask', () => {
    for (const url of ['ws://127.0.0.1:9222/devtools/browser/x', 'ws://localhost:9222/', 'ws://[::1]:9222/', 'ws://127.10.0.3/']) {
      expect(isLoopback(url), url).toBe(true);
    }
    for (const url of ['ws://10.0.0.5:9222/', 'wss://engine.example.com/chromium', 'ws://127.0.0.1.example.com/', 'ws://localhost.example/', 'not a url']) {
      expect(isLoopback(url), url).toBe(false);
    }
  });
});
