import type { Socket } from 'node:net';
import type { Logger } from '../platform/Logger.js';
import type { MessageKind } from './RpcServerConnection.js';

/**
 * Writes newline-delimited messages to one client and respects back-pressure: once the socket's buffer is full it
 * stops reading that client's requests until the buffer drains, and counts the events queued meanwhile. A
 * subscriber that stops reading is dropped once its event backlog passes the limit, so it cannot grow the daemon's
 * memory, and other clients never wait for it (writes never block).
 */
export class SocketWriter {
  readonly #socket: Socket;
  readonly #maxEventBacklogBytes: number;
  readonly #logger: Logger;
  readonly #id: string;
  #congested = false;
  #eventBacklogBytes = 0;

  constructor(socket: Socket, options: { id: string; maxEventBacklogBytes: number; logger: Logger }) {
    this.#socket = socket;
    this.#id = options.id;
    this.#maxEventBacklogBytes = options.maxEventBacklogBytes;
    this.#logger = options.logger;
  }

  write(text: string, kind: MessageKind): void {
    const socket = this.#socket;
    if (socket.destroyed || !socket.writable) {
      return;
    }
    if (kind === 'event' && this.#congested) {
      this.#eventBacklogBytes += Buffer.byteLength(text) + 1;
      if (this.#eventBacklogBytes > this.#maxEventBacklogBytes) {
        this.#logger.warn(
          `dropping connection ${this.#id}: it stopped reading, and ${this.#eventBacklogBytes} bytes of events (limit ${this.#maxEventBacklogBytes}) wait for it`,
        );
        socket.destroy();
        return;
      }
    }
    if (!socket.write(`${text}\n`) && !this.#congested) {
      this.#congested = true;
      socket.pause();
      socket.once('drain', () => {
        this.#congested = false;
        this.#eventBacklogBytes = 0;
        if (!socket.destroyed) {
          socket.resume();
        }
      });
    }
  }
}
