import { createConnection, type Socket } from 'node:net';
import { expect } from 'vitest';
import type { DaemonStatus } from '../../shared/model.js';
import { PROTOCOL_VERSION } from '../../shared/protocol.js';
import { isRecord } from '../../shared/isRecord.js';

/** One newline-delimited JSON-RPC message as the daemon sent it, unchecked. */
export interface RawMessage {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { code: string } };
  method?: string;
}

/** A socket client that writes bytes as they are and collects every newline-delimited reply. */
export class RawConnection {
  readonly #received: RawMessage[] = [];
  readonly #waiters: { match: (message: RawMessage) => boolean; resolve: (message: RawMessage) => void }[] = [];
  #buffer = '';
  #nextId = 1000;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let newline = this.#buffer.indexOf('\n');
      while (newline !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        this.#deliver(JSON.parse(line) as RawMessage);
        newline = this.#buffer.indexOf('\n');
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
    });
  }

  static open(path: string): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ path });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** A connection that already said a valid hello. */
  static async hello(path: string): Promise<RawConnection> {
    const connection = await RawConnection.open(path);
    const reply = await connection.request('tabmux/hello', { protocolVersion: PROTOCOL_VERSION, client: { name: 'raw' } });
    expect(reply.error).toBeUndefined();
    return connection;
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** The next reply that matches, whether it arrived already or arrives within the timeout. */
  next(match: (message: RawMessage) => boolean = () => true, timeoutMs = 15_000): Promise<RawMessage> {
    const index = this.#received.findIndex(match);
    if (index !== -1) {
      const [message] = this.#received.splice(index, 1);
      return Promise.resolve(message!);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (message: RawMessage) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`no matching reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Sends a request with a fresh id and waits for the reply that carries it. */
  async request(method: string, params?: unknown, extra: Record<string, unknown> = {}): Promise<RawMessage> {
    const id = this.#nextId++;
    await this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params, ...extra })}\n`);
    return this.next((message) => message.id === id);
  }

  async status(): Promise<DaemonStatus> {
    const reply = await this.request('tabmux/status');
    expect(reply.error).toBeUndefined();
    return reply.result as DaemonStatus;
  }

  destroy(): void {
    this.socket.destroy();
  }

  #deliver(message: RawMessage): void {
    const index = this.#waiters.findIndex((waiter) => waiter.match(message));
    if (index === -1) {
      this.#received.push(message);
      return;
    }
    const [waiter] = this.#waiters.splice(index, 1);
    waiter!.resolve(message);
  }
}

/** The tabmux error code an error reply carries. */
export function tabmuxCode(message: RawMessage): string | undefined {
  return message.error?.data?.code;
}

/** The text and error flag of a tool result reply. */
export function toolText(message: RawMessage): { text: string; isError: boolean } {
  expect(message.error).toBeUndefined();
  const result = message.result;
  if (!isRecord(result) || !Array.isArray(result['content'])) {
    throw new Error(`not a tool result: ${JSON.stringify(message)}`);
  }
  const text = result['content']
    .filter(isRecord)
    .map((item) => (typeof item['text'] === 'string' ? item['text'] : ''))
    .join('\n');
  return { text, isError: result['isError'] === true };
}
