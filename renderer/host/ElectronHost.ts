import { TabmuxError } from '../../shared/errors.js';
import { fromIpcReply } from '../../shared/ipcReply.js';
import {
  supervisorEventSchema,
  type SupervisorBridge,
  type SupervisorEvent,
  type SupervisorMethod,
  type SupervisorParams,
  type SupervisorResults,
} from '../../shared/supervisor.js';
import { checkSupervisorResult } from './checkSupervisorResult.js';
import type { Host, HostConnection } from './Host.js';

declare global {
  interface Window {
    /** Set by the tray app's preload; absent in a plain browser. */
    tabmux?: SupervisorBridge;
  }
}

// The main process answers with an envelope and never throws; a rejection means IPC itself failed, and
// ipcRenderer.invoke prefixes its message with the channel, which the user need not see.
const IPC_PREFIX = /^Error invoking remote method '[^']*': (?:\w*Error: )?/;

/** Talks to the supervisor in the Electron main process through the preload bridge. */
export class ElectronHost implements Host {
  readonly #bridge: SupervisorBridge;

  constructor(bridge: SupervisorBridge) {
    this.#bridge = bridge;
  }

  async call<M extends SupervisorMethod>(method: M, params: SupervisorParams[M]): Promise<SupervisorResults[M]> {
    let reply: unknown;
    try {
      reply = await this.#bridge.call(method, params);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new TabmuxError('internal', message.replace(IPC_PREFIX, ''), { cause: error });
    }
    const result = checkSupervisorResult(method, params, fromIpcReply(reply));
    if (result === undefined) {
      throw new TabmuxError('protocol_mismatch', `The tray app answered ${method} with something this window does not understand; restart tabmux.`);
    }
    return result;
  }

  subscribe(listener: (event: SupervisorEvent) => void): () => void {
    return this.#bridge.subscribe((event) => {
      const parsed = supervisorEventSchema.safeParse(event);
      if (parsed.success) {
        listener(parsed.data);
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
