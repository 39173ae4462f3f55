import { TabmuxError } from './errors.js';
import { isRecord } from './isRecord.js';
import { asResponse, type JsonRpcId } from './jsonrpc.js';
import { leadingId } from './leadingId.js';

interface PendingCall {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: TabmuxError) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export interface RpcClientCoreOptions {
  /**
   * Writes one serialized message; the transport adds its framing (a newline, a WebSocket frame). `id` is the
   * request's, for a transport that can tell a request it could not deliver (see `failUndelivered`).
   */
  send: (text: string, id?: JsonRpcId) => void;
  /** Notifications from the server (events, MCP progress). */
  onNotification?: (method: string, params: unknown) => void;
  /** Longest a call may wait for its reply; none when unset (the daemon times tool calls out itself). */
  callTimeoutMs?: number;
}

/**
 * The calling side of JSON-RPC 2.0, shared by the daemon socket client and the dashboard's WebSocket host: it
 * numbers requests, matches replies, turns wire errors into `TabmuxError`s with their code, and passes
 * notifications on. It owns no socket, so a transport can swap sockets under it on reconnect.
 *
 * A reply that cannot be matched by its id never leaves a call waiting forever: an error reply without an id (the
 * server could not read the request's id) fails the oldest call, and a reply too long to read fails the call named
 * in its head, or the oldest call when the head does not say.
 */
export class RpcClientCore {
  readonly #send: (text: string, id?: JsonRpcId) => void;
  readonly #onNotification: (method: string, params: unknown) => void;
  readonly #callTimeoutMs: number | undefined;
  readonly #pending = new Map<JsonRpcId, PendingCall>();
  #nextId = 1;

  constructor(options: RpcClientCoreOptions) {
    this.#send = options.send;
    this.#onNotification = options.onNotification ?? (() => undefined);
    this.#callTimeoutMs = options.callTimeoutMs;
  }

  /** Id of the next request, so a caller can later cancel it (MCP `notifications/cancelled`). */
  get nextId(): number {
    return this.#nextId;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timeoutMs = this.#callTimeoutMs;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.#settle(id);
              reject(new TabmuxError('timeout', `${method} got no reply within ${Math.round(timeoutMs / 1000)} s; check that tabmux is still running and try again.`));
            }, timeoutMs);
      this.#pending.set(id, { method, resolve, reject, timer });
      try {
        this.#send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), id);
      } catch (error) {
        this.#settle(id);
        reject(TabmuxError.from(error));
      }
    });
  }

  notify(method: string, params: unknown): void {
    this.#send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  /** Feeds one incoming message as text. Text that is not JSON is ignored: a reply can only settle its own call. */
  handleText(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    this.handleMessage(value);
  }

  /** Feeds one parsed incoming message. */
  handleMessage(value: unknown): void {
    if (isRecord(value) && typeof value['method'] === 'string') {
      this.#onIncoming(value['method'], value['id'], value['params']);
      return;
    }
    const response = asResponse(value);
    if (!response) {
      return;
    }
    if (response.id === null) {
      if ('error' in response) {
        this.#oldest()?.reject(TabmuxError.fromWire(response.error));
      }
      return;
    }
    const pending = this.#settle(response.id);
    if (!pending) {
      return;
    }
    if ('error' in response) {
      pending.reject(TabmuxError.fromWire(response.error));
    } else {
      pending.resolve(response.result);
    }
  }

  /**
   * A message the transport dropped unread (over its size limit, not UTF-8): fails the call it answered, found by
   * the id in the message's head, else the oldest call, so no caller waits for a reply that will never come.
   */
  handleUnreadable(head: string, error: TabmuxError): void {
    const id = leadingId(head);
    const pending = id === undefined ? this.#oldest() : this.#settle(id);
    if (!pending) {
      return;
    }
    pending.reject(new TabmuxError(error.code, `the reply to ${pending.method} was dropped: ${error.message}`, { cause: error }));
  }

  /**
   * Settles a call with a value the transport read itself (a reply passed on unparsed); false when no call waits
   * under that id.
   */
  resolveWith(id: JsonRpcId, value: unknown): boolean {
    const pending = this.#settle(id);
    pending?.resolve(value);
    return pending !== undefined;
  }

  /** Rejects the calls with these ids that still wait (requests the transport could not deliver). */
  failSome(ids: Iterable<JsonRpcId>, error: TabmuxError): void {
    for (const id of ids) {
      this.#settle(id)?.reject(error);
    }
  }

  /** Rejects every call still waiting, e.g. when the socket under them closed. */
  failAll(error: TabmuxError): void {
    for (const id of [...this.#pending.keys()]) {
      this.#settle(id)?.reject(error);
    }
  }

  /**
   * A request from the server: notifications go to the listener; a request with an id is answered at once, because
   * this client serves no methods and a request left unanswered would hold up whoever sent it.
   */
  #onIncoming(method: string, id: unknown, params: unknown): void {
    if (typeof id === 'string' || typeof id === 'number') {
      this.#send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `${method} is not served by this client` } }));
      return;
    }
    this.#onNotification(method, params);
  }

  #oldest(): PendingCall | undefined {
    const first = this.#pending.keys().next();
    return first.done === true ? undefined : this.#settle(first.value);
  }

  #settle(id: JsonRpcId): PendingCall | undefined {
    const pending = this.#pending.get(id);
    if (pending) {
      clearTimeout(pending.timer);
      this.#pending.delete(id);
    }
    return pending;
  }
}
