import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { openCdpConnection } from './CdpConnection.js';

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
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('no port');
  }
  return `ws://127.0.0.1:${address.port}/chromium?token=s3cret`;
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
