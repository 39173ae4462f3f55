import { TabmuxError } from '../../shared/errors.js';
import type { SupervisorMethod, SupervisorResults } from '../../shared/supervisor.js';
import type { Host, HostConnection } from './Host.js';

/**
 * Stands in when the page can reach no supervisor at all (the built files opened straight from disk in a browser),
 * so the UI explains what to open instead of retrying a socket that cannot exist.
 */
export class UnavailableHost implements Host {
  readonly #reason: string;

  constructor(reason: string) {
    this.#reason = reason;
  }

  call<M extends SupervisorMethod>(method: M): Promise<SupervisorResults[M]> {
    return Promise.reject(new TabmuxError('dashboard_unreachable', `${method}: ${this.#reason}`));
  }

  subscribe(): () => void {
    return () => undefined;
  }

  watchConnection(listener: (connection: HostConnection) => void): () => void {
    listener({ state: 'closed', reason: this.#reason, retryAt: null });
    return () => undefined;
  }

  dispose(): void {
    // Nothing to release.
  }
}
