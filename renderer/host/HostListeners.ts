import type { SupervisorEvent } from '../../shared/supervisor.js';
import type { HostConnection } from './Host.js';

/**
 * What a host tells its listeners: the supervisor's events, and the state of its connection (a new listener hears the
 * current state at once). A listener that unsubscribes while others are told is still told this time, not after.
 */
export class HostListeners {
  readonly #events = new Set<(event: SupervisorEvent) => void>();
  readonly #connections = new Set<(connection: HostConnection) => void>();
  #connection: HostConnection;

  constructor(connection: HostConnection) {
    this.#connection = connection;
  }

  get connection(): HostConnection {
    return this.#connection;
  }

  subscribe(listener: (event: SupervisorEvent) => void): () => void {
    this.#events.add(listener);
    return () => {
      this.#events.delete(listener);
    };
  }

  watchConnection(listener: (connection: HostConnection) => void): () => void {
    this.#connections.add(listener);
    listener(this.#connection);
    return () => {
      this.#connections.delete(listener);
    };
  }

  emit(event: SupervisorEvent): void {
    for (const listener of [...this.#events]) {
      listener(event);
    }
  }

  setConnection(connection: HostConnection): void {
    this.#connection = connection;
    for (const listener of [...this.#connections]) {
      listener(connection);
    }
  }

  clear(): void {
    this.#events.clear();
    this.#connections.clear();
  }
}
