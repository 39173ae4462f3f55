import { TabmuxError } from '../../shared/errors.js';
import type {
  SupervisorBridge,
  SupervisorEvent,
  SupervisorMethod,
  SupervisorParams,
  SupervisorResults,
} from '../../shared/supervisor.js';
import type { Host, HostConnection } from './Host.js';
import { isSupervisorEvent, isSupervisorResult } from './supervisorGuards.js';

declare global {
  interface Window {
    /** Set by the tray app's preload; absent in a plain browser. */
    tabmux?: SupervisorBridge;
  }
}

// ipcRenderer.invoke prefixes rejected errors with the channel; the user should see only the server's words.
const IPC_PREFIX = /^Error invoking remote method '[^']*': (?:\w*Error: )?/;

/** Talks to the supervisor in the Electron main process through the preload bridge. */
export class ElectronHost implements Host {
  readonly #bridge: SupervisorBridge;

  constructor(bridge: SupervisorBridge) {
    this.#bridge = bridge;
  }

  async call<M extends SupervisorMethod>(method: M, params: SupervisorParams[M]): Promise<SupervisorResults[M]> {
    let result: unknown;
    try {
      result = await this.#bridge.call(method, params);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new TabmuxError('internal', message.replace(IPC_PREFIX, ''), { cause: error });
    }
    if (!isSupervisorResult(method, result)) {
      throw new TabmuxError('internal', `The tray app answered ${method} with something this window does not understand; restart tabmux.`);
    }
    return result;
  }

  subscribe(listener: (event: SupervisorEvent) => void): () => void {
    return this.#bridge.subscribe((event) => {
      if (isSupervisorEvent(event)) {
        listener(event);
      }
    });
  }

  /** The main process lives exactly as long as this window, so the bridge is always connected. */
  watchConnection(listener: (connection: HostConnection) => void): () => void {
    listener({ state: 'open' });
    return () => undefined;
  }

  dispose(): void {
    // The bridge has no state of its own; subscriptions end with their unsubscribe functions.
  }
}
