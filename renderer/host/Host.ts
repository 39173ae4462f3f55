import type { SupervisorEvent, SupervisorMethod, SupervisorParams, SupervisorResults } from '../../shared/supervisor.js';

/** Whether the host can reach the supervisor. `reason` says why not, in words a user can act on. */
export type HostConnection = { state: 'connecting' } | { state: 'open' } | { state: 'closed'; reason: string; retryAt: number | null };

/**
 * Everything the UI needs from the process that runs the supervisor. The tray window reaches it through the
 * preload bridge and the web dashboard through a WebSocket; no component knows which.
 */
export interface Host {
  /** Calls a supervisor method; rejects with a `TabmuxError` carrying the server's message. */
  call<M extends SupervisorMethod>(method: M, params: SupervisorParams[M]): Promise<SupervisorResults[M]>;
  /** Subscribes to pushed supervisor events; returns an unsubscribe function. */
  subscribe(listener: (event: SupervisorEvent) => void): () => void;
  /**
   * Reports the connection now and on every change. Each transition to `open` means events may have been missed,
   * so the listener reloads the snapshot.
   */
  watchConnection(listener: (connection: HostConnection) => void): () => void;
  dispose(): void;
}
