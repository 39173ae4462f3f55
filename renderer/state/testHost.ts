import type { SupervisorEvent, SupervisorMethod, SupervisorParams, SupervisorResults } from '../../shared/supervisor.js';
import type { Host, HostConnection } from '../host/Host.js';
import { checkSupervisorResult } from '../host/checkSupervisorResult.js';

type Handler = (method: SupervisorMethod, params: unknown) => unknown;

/** An in-memory host for unit tests: answers calls with a handler, records them, and lets the test push events. */
export class TestHost implements Host {
  readonly calls: Array<{ method: SupervisorMethod; params: unknown }> = [];
  readonly #listeners = new Set<(event: SupervisorEvent) => void>();
  readonly #connectionListeners = new Set<(connection: HostConnection) => void>();
  #connection: HostConnection;
  handler: Handler;

  constructor(handler: Handler, connection: HostConnection = { state: 'open' }) {
    this.handler = handler;
    this.#connection = connection;
  }

  async call<M extends SupervisorMethod>(method: M, params: SupervisorParams[M]): Promise<SupervisorResults[M]> {
    this.calls.push({ method, params });
    const result = await this.handler(method, params);
    const checked = checkSupervisorResult(method, params, result);
    if (checked === undefined) {
      throw new Error(`test handler answered ${method} with a wrong shape`);
    }
    return checked;
  }

  subscribe(listener: (event: SupervisorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  watchConnection(listener: (connection: HostConnection) => void): () => void {
    this.#connectionListeners.add(listener);
    listener(this.#connection);
    return () => {
      this.#connectionListeners.delete(listener);
    };
  }

  emit(event: SupervisorEvent): void {
    for (const listener of this.#listeners) {
      listener(event);
    }
  }

  setConnection(connection: HostConnection): void {
    this.#connection = connection;
    for (const listener of this.#connectionListeners) {
      listener(connection);
    }
  }

  dispose(): void {
    this.#listeners.clear();
  }
}
