import { chmod, lstat, rename, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import { withDeadline } from '../../../shared/withDeadline.js';
import type { Logger } from '../platform/Logger.js';
import { removeIfExists } from '../platform/secureFs.js';
import { LineDecoder } from './LineDecoder.js';
import type { PeerService } from './PeerService.js';
import { RpcServerConnection } from './RpcServerConnection.js';
import { MAX_REQUEST_LINE_BYTES, maxEventBacklogBytes, maxResponseBytes } from './socketLimits.js';
import { SocketWriter } from './SocketWriter.js';

export interface SocketServerLimits {
  maxResponseBytes: number;
  maxEventBacklogBytes: number;
}

/** Which file a socket is: a later socket at the same path is another file, with another inode. */
interface FileIdentity {
  dev: number;
  ino: number;
}

/**
 * Unix socket (named pipe on Windows) carrying newline-delimited JSON-RPC to the control service.
 *
 * The socket is bound under a private name, made 0600, and only then renamed to its path, so it appears there whole:
 * never before it listens, never with other permissions. On close it removes the file at its path only when that is
 * still the socket it published (same inode), never one another daemon put there. (Node's own close removes the name
 * it bound, which is the private one.)
 */
export class SocketServer {
  readonly #server: Server;
  /** The connections open now, each with what answers its requests. */
  readonly #sockets = new Map<Socket, RpcServerConnection>();
  readonly #path: string;
  #published: FileIdentity | undefined;
  #nextId = 1;

  private constructor(server: Server, path: string) {
    this.#server = server;
    this.#path = path;
  }

  /** Limits default to the environment's (see socketLimits.ts). */
  static async listen(path: string, service: PeerService, logger: Logger, limits?: SocketServerLimits): Promise<SocketServer> {
    await clearStaleSocket(path);
    const server = createServer();
    const instance = new SocketServer(server, path);
    const chosen = limits ?? { maxResponseBytes: maxResponseBytes(), maxEventBacklogBytes: maxEventBacklogBytes() };
    server.on('connection', (socket) => instance.#accept(socket, service, logger, chosen));
    const staged = process.platform === 'win32' ? path : stagingPath(path);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path: staged, readableAll: false, writableAll: false }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => logger.error(`socket server: ${error.message}`));
    if (staged !== path) {
      try {
        await chmod(staged, 0o600);
        await rename(staged, path);
        const stat = await lstat(path);
        instance.#published = { dev: stat.dev, ino: stat.ino };
      } catch (error) {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        throw error;
      }
    }
    return instance;
  }

  #accept(socket: Socket, service: PeerService, logger: Logger, limits: SocketServerLimits): void {
    const id = `c${this.#nextId++}`;
    const decoder = new LineDecoder(MAX_REQUEST_LINE_BYTES);
    const writer = new SocketWriter(socket, { id, maxEventBacklogBytes: limits.maxEventBacklogBytes, logger });
    const handle = service.open({ id, notify: (method, params) => connection.notify(method, params) });
    const connection = new RpcServerConnection({
      write: (text, kind) => writer.write(text, kind),
      dispatch: (request) => handle.dispatch(request),
      logger,
      maxMessageBytes: limits.maxResponseBytes,
    });
    this.#sockets.set(socket, connection);
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

  /**
   * Takes no more connections, from this turn on: a client on its way is hung up on before its hello, and a later one
   * is refused; either waits for this daemon to be gone and starts another (see tryConnect, connectOrStart). The
   * connections already made are kept until `close`.
   */
  refuseNew(): void {
    this.#server.close();
  }

  /**
   * Takes no more connections (see refuseNew) and waits, up to `timeoutMs`, until every request the open connections
   * made has been answered and the answers have been handed to the system (a reply larger than the socket's buffer
   * is not cut off by the `close` that follows). Says whether all were.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.refuseNew();
    const answered = Promise.all(
      [...this.#sockets].map(async ([socket, connection]) => {
        await connection.whenAnswered();
        if (socket.writableLength > 0 && !socket.destroyed) {
          await new Promise<void>((resolve) => {
            socket.once('drain', resolve);
            socket.once('close', resolve);
          });
        }
      }),
    );
    return (await withDeadline(answered, timeoutMs, 'late')) !== 'late';
  }

  /**
   * Stops serving. The socket file goes first, so a client that comes meanwhile finds no socket (nothing runs) rather
   * than one that refuses it.
   */
  async close(): Promise<void> {
    await this.#unpublish();
    for (const socket of this.#sockets.keys()) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #unpublish(): Promise<void> {
    const published = this.#published;
    this.#published = undefined;
    if (published === undefined) {
      return;
    }
    const now = await lstat(this.#path).catch(() => undefined);
    if (now !== undefined && now.dev === published.dev && now.ino === published.ino) {
      await rm(this.#path, { force: true });
    }
  }
}

/** A name next to the socket's, unique to this process and short (socket paths are limited to ~104 bytes). */
function stagingPath(path: string): string {
  const unique = `${process.pid.toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  return join(dirname(path), `.${basename(path).slice(0, 8)}.${unique}`);
}

/**
 * A socket file nothing listens on (its daemon is gone) is removed; one that answers, or is too busy to take the
 * connection now (EAGAIN: its backlog is full), belongs to a running daemon and is refused.
 */
export async function clearStaleSocket(path: string): Promise<void> {
  if (process.platform === 'win32') {
    return;
  }
  const alive = await new Promise<boolean>((resolve) => {
    const probe = createConnection({ path });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', (error) => resolve('code' in error && error.code === 'EAGAIN'));
  });
  if (alive) {
    throw new TabmuxError('daemon_running', `another daemon is already listening on ${path}; stop it first (tabmux daemon stop) or use another profile`);
  }
  await removeIfExists(path);
}
