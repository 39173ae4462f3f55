import { TabmuxError } from '../../shared/errors.js';
import { asRequest, asResponse, type JsonRpcId } from '../../shared/jsonrpc.js';

interface PendingCall {
  resolve: (value: unknown) => void;
  reject: (error: TabmuxError) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface RpcClientOptions {
  send: (text: string) => void;
  onNotification: (method: string, params: unknown) => void;
  /** Longest a call may wait for its reply; starting a profile launches Chrome, so this is generous. */
  callTimeoutMs?: number;
}

/**
 * The calling side of JSON-RPC 2.0 over any text channel: numbers requests, matches replies and turns wire errors
 * into `TabmuxError`s. It owns no socket, so the WebSocket host can swap sockets under it on reconnect.
 */
export class RpcClient {
  readonly #send: (text: string) => void;
  readonly #onNotification: (method: string, params: unknown) => void;
  readonly #callTimeoutMs: number;
  readonly #pending = new Map<JsonRpcId, PendingCall>();
  #nextId = 1;

  constructor(options: RpcClientOptions) {
    this.#send = options.send;
    this.#onNotification = options.onNotification;
    this.#callTimeoutMs = options.callTimeoutMs ?? 90_000;
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new TabmuxError('timeout', `${method} got no reply within ${Math.round(this.#callTimeoutMs / 1000)} s; check that tabmux is still running and try again.`));
      }, this.#callTimeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      try {
        this.#send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      } catch (error) {
        this.#settle(id);
        clearTimeout(timer);
        reject(TabmuxError.from(error));
      }
    });
  }

  /** Feeds one incoming text frame. Frames that are not JSON-RPC are ignored: a reply can only settle its own call. */
  handleMessage(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const response = asResponse(value);
    if (response) {
      if (response.id === null) {
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
      return;
    }
    const request = asRequest(value);
    if (typeof request !== 'string' && request.id === undefined) {
      this.#onNotification(request.method, request.params);
    }
  }

  /** Rejects every call still waiting, e.g. when the socket under them closed. */
  failAll(error: TabmuxError): void {
    for (const id of [...this.#pending.keys()]) {
      this.#settle(id)?.reject(error);
    }
  }

  get pendingCount(): number {
    return this.#pending.size;
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
