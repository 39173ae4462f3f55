import { chmod } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { TabmuxError } from '../../../shared/errors.js';
import { MAX_REQUEST_LINE_BYTES } from '../../../shared/protocol.js';
import type { ControlService } from '../ControlService.js';
import type { Logger } from '../Logger.js';
import { removeIfExists } from '../secureFs.js';
import { LineDecoder } from './LineDecoder.js';

/** Unix socket (named pipe on Windows) carrying newline-delimited JSON-RPC to the control service. */
export class SocketServer {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #nextId = 1;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async listen(path: string, service: ControlService, logger: Logger): Promise<SocketServer> {
    await clearStaleSocket(path);
    const server = createServer();
    const instance = new SocketServer(server);
    server.on('connection', (socket) => instance.#accept(socket, service, logger));
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

  #accept(socket: Socket, service: ControlService, logger: Logger): void {
    const id = `c${this.#nextId++}`;
    this.#sockets.add(socket);
    const decoder = new LineDecoder(MAX_REQUEST_LINE_BYTES);
    const handle = service.open({
      id,
      send: (message) => {
        if (!socket.destroyed && socket.writable) {
          socket.write(`${JSON.stringify(message)}\n`);
        }
      },
    });
    socket.on('data', (chunk: Buffer) => {
      for (const decoded of decoder.push(chunk)) {
        if ('line' in decoded) {
          handle.handleLine(decoded.line);
        } else {
          handle.handleError(decoded.error);
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
