import type { SupervisorEvent, SupervisorMethod, SupervisorParams, SupervisorResults } from '../../shared/supervisor.js';
import type { Host, HostConnection } from '../host/Host.js';
import { checkSupervisorResult } from '../host/checkSupervisorResult.js';
import { HostListeners } from '../host/HostListeners.js';

type Handler = (method: SupervisorMethod, params: unknown) => unknown;

/** An in-memory host for unit tests: answers calls with a handler, records them, and lets the test push events. */
export class TestHost implements Host {
  readonly calls: Array<{ method: SupervisorMethod; params: unknown }> = [];
  readonly #listeners: HostListeners;
  handler: Handler;

  constructor(handler: Handler, connection: HostConnection = { state: 'open' }) {
    this.handler = handler;
    this.#listeners = new HostListeners(connection);
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
    return this.#listeners.subscribe(listener);
  }

  watchConnection(listener: (connection: HostConnection) => void): () => void {
    return this.#listeners.watchConnection(listener);
  }

  emit(event: SupervisorEvent): void {
    this.#listeners.emit(event);
  }

  setConnection(connection: HostConnection): void {
    this.#listeners.setConnection(connection);
  }

  dispose(): void {
    this.#listeners.clear();
  }
}
