import { chmod } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { TabmuxError } from '../../../shared/errors.js';
import type { ControlService } from '../ControlService.js';
import type { Logger } from '../Logger.js';
import { removeIfExists } from '../secureFs.js';
import { LineDecoder } from './LineDecoder.js';
import { RpcServerConnection } from './RpcServerConnection.js';
import { MAX_REQUEST_LINE_BYTES, maxEventBacklogBytes, maxResponseBytes } from './socketLimits.js';
import { SocketWriter } from './SocketWriter.js';

export interface SocketServerLimits {
  maxResponseBytes: number;
  maxEventBacklogBytes: number;
}

/** Unix socket (named pipe on Windows) carrying newline-delimited JSON-RPC to the control service. */
export class SocketServer {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #nextId = 1;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Limits default to the environment's (see socketLimits.ts). */
  static async listen(path: string, service: ControlService, logger: Logger, limits?: SocketServerLimits): Promise<SocketServer> {
    await clearStaleSocket(path);
    const server = createServer();
    const instance = new SocketServer(server);
    const chosen = limits ?? { maxResponseBytes: maxResponseBytes(), maxEventBacklogBytes: maxEventBacklogBytes() };
    server.on('connection', (socket) => instance.#accept(socket, service, logger, chosen));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path, readableAll: false, writableAll: false }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => logger.error(`socket server: ${error.message}`));
    if (process.platform !== 'win32') {
      await chmod(path, 0o600);
    }
    return instance;
  }

  #accept(socket: Socket, service: ControlService, logger: Logger, limits: SocketServerLimits): void {
    const id = `c${this.#nextId++}`;
    this.#sockets.add(socket);
    const decoder = new LineDecoder(MAX_REQUEST_LINE_BYTES);
    const writer = new SocketWriter(socket, { id, maxEventBacklogBytes: limits.maxEventBacklogBytes, logger });
    const handle = service.open({ id, notify: (method, params) => connection.notify(method, params) });
    const connection = new RpcServerConnection({
      write: (text, kind) => writer.write(text, kind),
      dispatch: (request) => handle.dispatch(request),
      logger,
      maxMessageBytes: limits.maxResponseBytes,
    });
    socket.on('data', (chunk: Buffer) => {
      for (const decoded of decoder.push(chunk)) {
        if ('line' in decoded) {
          connection.handleText(decoded.line);
        } else {
          connection.handleUnreadable(decoded.error, decoded.head);
        }
      }
    });
    socket.on('error', (error) => logger.debug(`connection ${id}: ${error.message}`));
    socket.on('close', () => {
      this.#sockets.delete(socket);
      handle.close();
    });
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A socket file whose daemon is gone is removed; one that still answers belongs to a live daemon. */
async function clearStaleSocket(path: string): Promise<void> {
  if (process.platform === 'win32') {
    return;
  }
  const alive = await new Promise<boolean>((resolve) => {
    const probe = createConnection({ path });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (alive) {
    throw new TabmuxError('daemon_running', `another daemon is already listening on ${path}; stop it first (tabmux daemon stop) or use another profile`);
  }
  await removeIfExists(path);
}
