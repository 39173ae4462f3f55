import type { EventEmitter } from 'node:events';
import type { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import type { BrowserInfo, ExternalBrowserState } from '../../../shared/model.js';

/**
 * Where the upstream workers connect: HTTP discovery (`--browserUrl`) or a WebSocket endpoint (`--wsEndpoint`).
 * Never a credential: a worker's command line is readable by every local user, so an endpoint that needs one is
 * reached through a loopback relay. `hiddenEnv` names environment variables that hold secrets and are kept from the
 * worker's environment.
 */
export type BrowserEndpoint = { kind: 'browserUrl'; url: string; hiddenEnv?: readonly string[] } | { kind: 'wsEndpoint'; url: string; hiddenEnv?: readonly string[] };

/**
 * A launched browser: `ready`: usable; `degraded`: lost and being brought back (calls fail fast meanwhile);
 * `crashed`: keeps failing, retried at the longest backoff, `lastError` says why. An external browser has the
 * connection states of `ExternalBrowserState` instead.
 */
export type BrowserState = 'stopped' | 'starting' | 'ready' | 'degraded' | 'crashed' | 'closing' | 'closed' | ExternalBrowserState;

/** One run of the browser as the daemon sees it: a new one after every relaunch or reconnect. */
export interface BrowserRun {
  /** The daemon's own CDP connection to this run, outside upstream's mutex. */
  connection: Connection;
  /** The browser's DevTools port on this machine, when it has one (what the control-surface guard keeps tabs from). */
  debuggingPort: number | null;
}

export interface ProfileBrowserEvents {
  state: [state: BrowserState, lastError: string | null];
  /** The browser went away, and every tab with it. */
  lost: [reason: string];
  /** A new run is ready (after `prepare` succeeded on it). */
  back: [run: BrowserRun];
}

export interface ProfileBrowserHooks {
  /**
   * Runs on every new run before it counts as ready: the daemon watches tabs and installs its guard here. A throw
   * makes that start (or relaunch) fail, so nothing is served on a browser that is not prepared.
   */
  prepare: (run: BrowserRun) => Promise<void>;
}

/**
 * The browser a profile drives, whatever it is. The daemon starts it, points the upstream workers at `endpoint()`,
 * uses `connection()` for what must not depend on page text (tabs, openers, the guard), follows its state, and
 * closes it. A browser that is lost is brought back by the implementation, each time with a new connection.
 */
export interface ProfileBrowser extends EventEmitter<ProfileBrowserEvents> {
  readonly kind: BrowserInfo['kind'];
  readonly state: BrowserState;
  readonly lastError: string | null;
  /** Brings the browser up the first time; rejects with a TabmuxError that says what to do. */
  start(): Promise<void>;
  /**
   * Where upstream connects, for a worker about to start. A launched browser must be running; an external one gives
   * its address without connecting (upstream reaches the browser only inside a call, after `ready`). Rejects with a
   * TabmuxError that says what to do.
   */
  ensure(): Promise<BrowserEndpoint>;
  /**
   * Before every call that reaches the browser: resolves once a prepared run (guard installed, tabs watched) is
   * there. An external browser connects now if it is not connected, whatever its backoff. Rejects with a TabmuxError
   * that says what to do when the browser is not there.
   */
  ready(): Promise<void>;
  /** Where upstream connects, while the browser is ready. */
  endpoint(): BrowserEndpoint | undefined;
  /** The daemon's own CDP connection of the current run, while the browser is ready. */
  connection(): Connection | undefined;
  info(): BrowserInfo;
  /**
   * Stops using the browser; one that tabmux launched is closed so its profile state reaches disk, one it connected
   * to is only disconnected from.
   */
  close(): Promise<void>;
}
