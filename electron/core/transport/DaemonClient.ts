import { createConnection, type Socket } from 'node:net';
import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import { asResponse, type JsonRpcId } from '../../../shared/jsonrpc.js';
import { isDaemonEvent, type DaemonEvent } from '../../../shared/model.js';
import {
  EVENT_METHOD,
  MAX_RESPONSE_LINE_BYTES,
  PROTOCOL_VERSION,
  type ControlInput,
  type ControlMethod,
  type ControlResults,
  type HelloResult,
} from '../../../shared/protocol.js';
import { LineDecoder } from './LineDecoder.js';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: TabmuxError) => void;
}

/**
 * A connection to one profile daemon: typed control calls, raw MCP requests on a bound connection, and pushed events.
 * Used by the CLI, the stdio bridge and the supervisor.
 */
export class DaemonClient {
  readonly hello: HelloResult;
  readonly #socket: Socket;
  readonly #pending = new Map<JsonRpcId, Pending>();
  readonly #eventListeners = new Set<(event: DaemonEvent) => void>();
  readonly #closeListeners = new Set<() => void>();
  readonly #notificationListeners = new Set<(method: string, params: unknown) => void>();
  #nextId = 1;
  #closed = false;

  private constructor(socket: Socket, hello: HelloResult) {
    this.#socket = socket;
    this.hello = hello;
  }

  static async connect(path: string, clientName = 'tabmux-cli'): Promise<DaemonClient> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const candidate = createConnection({ path });
      candidate.once('connect', () => {
        candidate.off('error', reject);
        resolve(candidate);
      });
      candidate.once('error', (error) => {
        reject(new TabmuxError('daemon_not_running', `no daemon answers on ${path} (${error.message}); start it with: tabmux daemon start`, { cause: error }));
      });
    });
    const client = new DaemonClient(socket, { protocolVersion: PROTOCOL_VERSION, version: '', profile: '', pid: 0 });
    client.#wire();
    const hello = await client.request('tabmux/hello', { protocolVersion: PROTOCOL_VERSION, client: { name: clientName } });
    if (!isHello(hello)) {
      client.close();
      throw new TabmuxError('protocol_mismatch', 'the daemon answered tabmux/hello with something unexpected');
    }
    Object.assign(client, { hello });
    return client;
  }

  get closed(): boolean {
    return this.#closed;
  }

  call<M extends ControlMethod>(method: M, params?: ControlInput<M>): Promise<ControlResults[M]> {
    return this.request(method, params ?? {}) as Promise<ControlResults[M]>;
  }

  /** Sends any JSON-RPC request (MCP methods on a bound connection) and resolves with its result. */
  request(method: string, params?: unknown): Promise<unknown> {
    if (this.#closed) {
      return Promise.reject(new TabmuxError('daemon_not_running', 'the connection to the daemon is closed'));
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string, params?: unknown): void {
    if (!this.#closed) {
      this.#socket.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
    }
  }

  /** Id of the next request, so a caller can later cancel it with notifications/cancelled. */
  get nextRequestId(): number {
    return this.#nextId;
  }

  onEvent(listener: (event: DaemonEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /** Notifications from the daemon other than tabmux events, such as MCP progress on a bound connection. */
  onNotification(listener: (method: string, params: unknown) => void): () => void {
    this.#notificationListeners.add(listener);
    return () => this.#notificationListeners.delete(listener);
  }

  onClose(listener: () => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  close(): void {
    this.#socket.end();
    this.#socket.destroy();
  }

  #wire(): void {
    const decoder = new LineDecoder(MAX_RESPONSE_LINE_BYTES);
    this.#socket.on('data', (chunk: Buffer) => {
      for (const decoded of decoder.push(chunk)) {
        if ('line' in decoded) {
          this.#onLine(decoded.line);
        }
      }
    });
    this.#socket.on('error', () => undefined);
    this.#socket.on('close', () => {
      this.#closed = true;
      const error = new TabmuxError('daemon_not_running', 'the daemon closed the connection (it may have stopped or crashed; see tabmux daemon status)');
      for (const pending of this.#pending.values()) {
        pending.reject(error);
      }
      this.#pending.clear();
      for (const listener of this.#closeListeners) {
        listener();
      }
    });
  }

  /**
   * A request or notification from the daemon other than an event. Notifications (MCP progress, logging, list
   * changes) go to listeners; a request gets an answer at once, because this client serves no methods and a
   * request left unanswered would hold up whoever sent it.
   */
  #onIncoming(method: string, id: unknown, params: unknown): void {
    if (typeof id === 'string' || typeof id === 'number') {
      this.#socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `${method} is not served by this client` } })}\n`);
      return;
    }
    for (const listener of this.#notificationListeners) {
      listener(method, params);
    }
  }

  #onLine(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return;
    }
    if (isRecord(json) && json['method'] === EVENT_METHOD && isDaemonEvent(json['params'])) {
      const event = json['params'];
      for (const listener of this.#eventListeners) {
        listener(event);
      }
      return;
    }
    if (isRecord(json) && typeof json['method'] === 'string') {
      this.#onIncoming(json['method'], json['id'], json['params']);
      return;
    }
    const response = asResponse(json);
    if (!response || response.id === null) {
      return;
    }
    const pending = this.#pending.get(response.id);
    if (!pending) {
      return;
    }
    this.#pending.delete(response.id);
    if ('error' in response) {
      pending.reject(TabmuxError.fromWire(response.error));
    } else {
      pending.resolve(response.result);
    }
  }
}

function isHello(value: unknown): value is HelloResult {
  return isRecord(value) && typeof value['protocolVersion'] === 'number' && typeof value['profile'] === 'string';
}
