import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { Logger } from '../platform/Logger.js';
import { WsRelay } from './WsRelay.js';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

/** A WebSocket server that records each handshake and echoes every message back. */
async function echoServer(): Promise<{ url: string; handshakes: IncomingMessage[] }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const handshakes: IncomingMessage[] = [];
  server.on('connection', (socket, request) => {
    handshakes.push(request);
    socket.on('message', (data, binary) => socket.send(data, { binary }));
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('no port');
  }
  return { url: `ws://127.0.0.1:${address.port}/chromium?token=s3cret`, handshakes };
}

describe('WsRelay', () => {
  it('forwards both ways in order, adding the credentials only on the far side', async () => {
    const echo = await echoServer();
    const relay = await WsRelay.start({ target: () => ({ url: echo.url, headers: { Authorization: 'Bearer h3ader' } }), logger: Logger.silent() });
    cleanups.push(() => relay.close());
    expect(relay.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/relay\/[0-9a-f]{48}$/);
    expect(relay.url).not.toContain('s3cret');

    const client = new WebSocket(relay.url);
    const received: string[] = [];
    client.on('message', (data: Buffer) => received.push(data.toString('utf8')));
    await once(client, 'open');
    // Sent at once: the far side may not be open yet, and the order must hold anyway.
    for (const text of ['one', 'two', 'three']) {
      client.send(text);
    }
    await expect.poll(() => received).toEqual(['one', 'two', 'three']);
    expect(echo.handshakes[0]?.url).toBe('/chromium?token=s3cret');
    expect(echo.handshakes[0]?.headers.authorization).toBe('Bearer h3ader');
    client.close();
  });

  it('refuses any other path', async () => {
    const echo = await echoServer();
    const relay = await WsRelay.start({ target: () => ({ url: echo.url, headers: {} }), logger: Logger.silent() });
    cleanups.push(() => relay.close());
    const guess = new WebSocket(relay.url.replace(/relay\/[0-9a-f]+/, 'relay/0000'));
    const [error] = (await once(guess, 'error')) as [Error];
    expect(error.message).toMatch(/404/);
    expect(echo.handshakes).toHaveLength(0);
  });

  it('closes the worker side when the far side goes away', async () => {
    const echo = await echoServer();
    const relay = await WsRelay.start({ target: () => ({ url: echo.url, headers: {} }), logger: Logger.silent() });
    const client = new WebSocket(relay.url);
    await once(client, 'open');
    client.send('hello');
    await once(client, 'message');
    const closed = once(client, 'close');
    await relay.close();
    await closed;
    expect(client.readyState).toBe(WebSocket.CLOSED);
  });
});
