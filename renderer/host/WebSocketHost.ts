import { TabmuxError } from '../../shared/errors.js';
import { RpcClientCore } from '../../shared/RpcClientCore.js';
import {
  SUPERVISOR_EVENT_METHOD,
  supervisorEventSchema,
  type SupervisorEvent,
  type SupervisorMethod,
  type SupervisorParams,
  type SupervisorResults,
} from '../../shared/supervisor.js';
import { checkSupervisorResult } from './checkSupervisorResult.js';
import { HostListeners } from './HostListeners.js';
import type { Host, HostConnection } from './Host.js';

/** The part of the DOM WebSocket this host uses, so tests can hand it a fake. */
export interface SocketLike {
  readonly readyState: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
}

export interface WebSocketHostOptions {
  url: string;
  createSocket?: (url: string) => SocketLike;
  /** Delay before reconnect attempt `attempt` (0-based). */
  backoffMs?: (attempt: number) => number;
}

const OPEN = 1;

export function defaultBackoffMs(attempt: number): number {
  // 0.5 s, 1 s, 2 s ... capped at 10 s, with jitter so several dashboards do not knock in step.
  const base = Math.min(10_000, 500 * 2 ** attempt);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Talks to the `tabmux dashboard` server: JSON-RPC 2.0 over one WebSocket, reconnecting with backoff. */
export class WebSocketHost implements Host {
  readonly #url: string;
  readonly #createSocket: (url: string) => SocketLike;
  readonly #backoffMs: (attempt: number) => number;
  readonly #listeners = new HostListeners({ state: 'connecting' });
  readonly #rpc: RpcClientCore;
  #socket: SocketLike | null = null;
  #attempt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #disposed = false;

  constructor(options: WebSocketHostOptions) {
    this.#url = options.url;
    this.#createSocket = options.createSocket ?? ((url) => new WebSocket(url));
    this.#backoffMs = options.backoffMs ?? defaultBackoffMs;
    this.#rpc = new RpcClientCore({
      send: (text) => {
        if (!this.#socket || this.#socket.readyState !== OPEN) {
          throw notConnected();
        }
        this.#socket.send(text);
      },
      onNotification: (method, params) => {
        const event = method === SUPERVISOR_EVENT_METHOD ? supervisorEventSchema.safeParse(params) : undefined;
        if (event?.success) {
          this.#listeners.emit(event.data);
        }
      },
      // Starting a profile launches Chrome, so this is generous.
      callTimeoutMs: 90_000,
    });
    this.#connect();
  }

  async call<M extends SupervisorMethod>(method: M, params: SupervisorParams[M]): Promise<SupervisorResults[M]> {
    if (this.#listeners.connection.state !== 'open') {
      throw notConnected();
    }
    const result = checkSupervisorResult(method, params, await this.#rpc.request(method, params));
    if (result === undefined) {
      throw new TabmuxError('protocol_mismatch', `The server answered ${method} with something this dashboard does not understand; reload the page.`);
    }
    return result;
  }

  subscribe(listener: (event: SupervisorEvent) => void): () => void {
    return this.#listeners.subscribe(listener);
  }

  watchConnection(listener: (connection: HostConnection) => void): () => void {
    return this.#listeners.watchConnection(listener);
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#retryTimer) {
      clearTimeout(this.#retryTimer);
    }
    this.#rpc.failAll(new TabmuxError('cancelled', 'The dashboard was closed.'));
    this.#socket?.close(1000, 'closed');
    this.#socket = null;
    this.#listeners.clear();
  }

  #connect(): void {
    if (this.#disposed) {
      return;
    }
    this.#setConnection({ state: 'connecting' });
    let socket: SocketLike;
    try {
      socket = this.#createSocket(this.#url);
    } catch (error) {
      this.#scheduleRetry(TabmuxError.from(error).message);
      return;
    }
    this.#socket = socket;
    socket.onopen = () => {
      this.#attempt = 0;
      this.#setConnection({ state: 'open' });
    };
    socket.onmessage = (event) => {
      if (typeof event.data === 'string') {
        this.#rpc.handleText(event.data);
      }
    };
    socket.onclose = (event) => {
      if (this.#socket !== socket) {
        return;
      }
      this.#socket = null;
      this.#rpc.failAll(new TabmuxError('dashboard_unreachable', 'The connection to tabmux closed before the reply arrived; try again once it reconnects.'));
      this.#scheduleRetry(closeReason(event));
    };
    // A failed socket always follows onerror with onclose, which does the bookkeeping.
    socket.onerror = () => undefined;
  }

  #scheduleRetry(reason: string): void {
    if (this.#disposed) {
      return;
    }
    const delay = this.#backoffMs(this.#attempt);
    this.#attempt += 1;
    this.#setConnection({ state: 'closed', reason, retryAt: Date.now() + delay });
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      this.#connect();
    }, delay);
  }

  #setConnection(connection: HostConnection): void {
    this.#listeners.setConnection(connection);
  }
}

function notConnected(): TabmuxError {
  return new TabmuxError('dashboard_unreachable', 'Not connected to tabmux right now; the dashboard reconnects on its own. Try again in a moment.');
}

function closeReason(event: CloseEvent): string {
  if (event.reason) {
    return event.reason;
  }
  // The browser hides why a WebSocket upgrade failed (1006), and a wrong token looks the same as a stopped server.
  return 'Cannot reach the tabmux dashboard server. Is "tabmux dashboard" still running? If it was restarted, open the new link it printed: the access token changes.';
}
