import type { DaemonEvent, DaemonStatus, ProfileState, TabInfo } from './model.js';
import type { ControlInput, ControlMethod, ControlResults } from './protocol.js';

/**
 * The supervisor API: what a UI (the tray window through the preload, the web dashboard through its WebSocket) may
 * ask of the supervisor that sits above all profile daemons. Every method is one row of `SupervisorApi`; transports
 * and the renderer derive their types from it, so a method is never wired by hand twice.
 */

/** One profile as the UI sees it. `status` is null while the daemon is not running (or not yet reachable). */
export interface ProfileView {
  name: string;
  state: ProfileState;
  lastError: string | null;
  status: DaemonStatus | null;
  tabs: TabInfo[];
}

export interface SupervisorSnapshot {
  profiles: ProfileView[];
}

/**
 * Daemon control methods the supervisor forwards for a UI. Connection-scoped methods (hello, subscribe, bind, unbind)
 * belong to the supervisor's own connection, `tabmux/stop` is `supervisor/profile.stop`, and tool calls stay with
 * agents, so none of those are forwarded.
 */
export const FORWARDED_DAEMON_METHODS = [
  'tabmux/status',
  'tabmux/tools.list',
  'tabmux/tabs.list',
  'tabmux/tabs.open',
  'tabmux/session.create',
  'tabmux/session.list',
  'tabmux/session.close',
  'tabmux/session.page',
  'tabmux/session.attach',
  'tabmux/session.newPage',
  'tabmux/session.release',
  'tabmux/session.select',
  'tabmux/session.pause',
  'tabmux/session.resume',
  'tabmux/queue.cancel',
] as const satisfies readonly ControlMethod[];

export type ForwardedDaemonMethod = (typeof FORWARDED_DAEMON_METHODS)[number];

export function isForwardedDaemonMethod(method: string): method is ForwardedDaemonMethod {
  return (FORWARDED_DAEMON_METHODS as readonly string[]).includes(method);
}

/** A forwarded daemon call; the union keeps `method` and `params` in step. */
export type DaemonCall = {
  [M in ForwardedDaemonMethod]: { profile: string; method: M; params: ControlInput<M> };
}[ForwardedDaemonMethod];

/** What a forwarded call returns: the daemon's result for that method, unchanged. */
export type DaemonCallResult = ControlResults[ForwardedDaemonMethod];

type ProfileParams = { profile: string };

export interface SupervisorApi {
  /** Every known profile with its daemon status and tabs; a UI loads it first and after every reconnect. */
  'supervisor/snapshot': { params: Record<string, never>; result: SupervisorSnapshot };
  /** Resolve once the request is accepted; progress arrives as `profile` events. */
  'supervisor/profile.start': { params: ProfileParams; result: ProfileView };
  'supervisor/profile.stop': { params: ProfileParams; result: ProfileView };
  'supervisor/profile.restart': { params: ProfileParams; result: ProfileView };
  /** Forwards one daemon control method to the profile's daemon (error `daemon_not_running` when it is down). */
  'supervisor/daemon': { params: DaemonCall; result: DaemonCallResult };
}

export type SupervisorMethod = keyof SupervisorApi;
export type SupervisorParams = { [M in SupervisorMethod]: SupervisorApi[M]['params'] };
export type SupervisorResults = { [M in SupervisorMethod]: SupervisorApi[M]['result'] };

export const SUPERVISOR_METHODS = [
  'supervisor/snapshot',
  'supervisor/profile.start',
  'supervisor/profile.stop',
  'supervisor/profile.restart',
  'supervisor/daemon',
] as const satisfies readonly SupervisorMethod[];

export function isSupervisorMethod(method: string): method is SupervisorMethod {
  return (SUPERVISOR_METHODS as readonly string[]).includes(method);
}

/**
 * Pushed to every UI. `profile` carries the whole view of a profile whenever its lifecycle state changes (and when
 * its daemon connects, so the UI can replace what it had); `daemon` relays one event of a running daemon.
 */
export type SupervisorEvent = { type: 'profile'; profile: ProfileView } | { type: 'daemon'; profile: string; event: DaemonEvent };

/** JSON-RPC notification method that carries a `SupervisorEvent` over the dashboard WebSocket. */
export const SUPERVISOR_EVENT_METHOD = 'supervisor/event';

/**
 * What the Electron preload exposes as `window.tabmux`. Values cross the context bridge as structured clones, so
 * the renderer checks their shape again; a failed call rejects with an Error whose message is the server's.
 */
export interface SupervisorBridge {
  call(method: SupervisorMethod, params: unknown): Promise<unknown>;
  subscribe(listener: (event: unknown) => void): () => void;
}
