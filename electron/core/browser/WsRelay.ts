import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Logger } from '../platform/Logger.js';

/** Where a relayed connection goes, with its credentials. */
export interface RelayTarget {
  url: string;
  headers: Readonly<Record<string, string>>;
}

export interface WsRelayOptions {
  /** Asked at every connection: the browser can change between runs; none means it is not there now. */
  target: () => RelayTarget | undefined;
  logger: Logger;
}

/** The largest CDP message relayed (puppeteer's own default limit). */
const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

/**
 * A loopback WebSocket that forwards each connection to a remote browser, adding the credentials (a token in the
 * URL, auth headers) on the way. The upstream workers connect here, so no secret is ever on a worker's command
 * line, where every local user could read it. The address carries a random path, so only who was told it gets in.
 */
export class WsRelay {
  readonly #options: WsRelayOptions;
  readonly #path = `/relay/${randomBytes(24).toString('hex')}`;
  readonly #server: Server;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES, perMessageDeflate: false });
  readonly #sockets = new Set<WebSocket>();
  #url: string | undefined;

  private constructor(options: WsRelayOptions) {
    this.#options = options;
    this.#server = createServer((_request, response) => {
      response.writeHead(404).end();
    });
    this.#server.on('upgrade', (request, socket, head) => {
      if (request.url !== this.#path) {
        socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
        return;
      }
      this.#wss.handleUpgrade(request, socket, head, (client) => this.#relay(client));
    });
  }

  static async start(options: WsRelayOptions): Promise<WsRelay> {
    const relay = new WsRelay(options);
    await new Promise<void>((resolve, reject) => {
      relay.#server.once('error', reject);
      relay.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = relay.#server.address();
    if (address === null || typeof address === 'string') {
      throw new Error('the relay is not listening on a TCP port');
    }
    relay.#url = `ws://127.0.0.1:${address.port}${relay.#path}`;
    return relay;
  }

  /** Where the workers connect (`--wsEndpoint`): loopback, no credentials. */
  get url(): string {
    return this.#url ?? '';
  }

  /** Stops listening and closes every relayed connection. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) {
      socket.terminate();
    }
    this.#sockets.clear();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #relay(client: WebSocket): void {
    const { logger } = this.#options;
    const target = this.#options.target();
    if (target === undefined) {
      client.close(1011, 'the browser is not connected');
      return;
    }
    const remote = new WebSocket(target.url, { headers: { ...target.headers }, maxPayload: MAX_PAYLOAD_BYTES, perMessageDeflate: false, followRedirects: true });
    this.#sockets.add(client);
    this.#sockets.add(remote);
    // CDP messages the worker sends before the remote side is open wait here, in order.
    const pending: { data: RawData; binary: boolean }[] = [];
    client.on('message', (data, binary) => {
      if (remote.readyState === WebSocket.OPEN) {
        remote.send(data, { binary });
      } else {
        pending.push({ data, binary });
      }
    });
    remote.on('open', () => {
      for (const message of pending.splice(0)) {
        remote.send(message.data, { binary: message.binary });
      }
    });
    remote.on('message', (data, binary) => {
      if (client.readyState === WebSocket.OPEN) {
        client.send(data, { binary });
      }
    });
    const closeBoth = (): void => {
      this.#sockets.delete(client);
      this.#sockets.delete(remote);
      client.terminate();
      remote.terminate();
    };
    client.on('close', closeBoth);
    remote.on('close', closeBoth);
    client.on('error', closeBoth);
    remote.on('error', (error) => {
      // The message of `ws` never holds the URL or the headers; say only that the far side failed.
      logger.debug(`relayed browser connection failed: ${error.message}`);
      closeBoth();
    });
  }
}
