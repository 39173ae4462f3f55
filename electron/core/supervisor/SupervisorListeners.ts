import { TabmuxError } from '../../../shared/errors.js';
import type { SupervisorEvent } from '../../../shared/supervisor.js';
import type { Logger } from '../platform/Logger.js';

/**
 * The UIs listening to a supervisor. Each event goes to every listener; one that throws is logged, and the others
 * still hear the event.
 */
export class SupervisorListeners {
  readonly #listeners = new Set<(event: SupervisorEvent) => void>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Returns the way to stop listening. */
  add(listener: (event: SupervisorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: SupervisorEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.error(`event listener failed: ${TabmuxError.from(error).message}`);
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
  }
}
