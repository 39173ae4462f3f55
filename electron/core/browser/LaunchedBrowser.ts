import { EventEmitter } from 'node:events';
import type { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { LaunchedBrowserInfo } from '../../../shared/model.js';
import { Backoff } from '../platform/Backoff.js';
import type { Logger } from '../platform/Logger.js';
import { loadCdpModules, onDisconnected, openCdpConnection } from './CdpConnection.js';
import { ChromeProcess, type OrphanChrome } from './ChromeProcess.js';
import { findChrome } from './findChrome.js';
import type { BrowserEndpoint, BrowserState, ProfileBrowser, ProfileBrowserEvents, ProfileBrowserHooks } from './ProfileBrowser.js';
import { withDeadline } from '../../../shared/withDeadline.js';

export interface LaunchedBrowserOptions extends ProfileBrowserHooks {
  /** An explicit Chrome binary (`--chrome`, the profile's `chrome`); otherwise `TABMUX_CHROME` or the usual places. */
  chrome: string | undefined;
  userDataDir: string;
  headless: boolean;
  extraArgs: readonly string[];
  logger: Logger;
  /** How long this Chrome outlives a daemon that dies without closing it, for the next daemon to adopt it. */
  orphanGraceMs: number;
}

/** What a successor needs to adopt this Chrome, for the daemon's pid file. */
export interface ChromeRecord {
  chromePid: number | null;
  chromePort: number | null;
  watchdogPid: number | null;
}

interface Run {
  chrome: ChromeProcess;
  connection: Connection;
}

/** Lost runs in a row before the state says `crashed` rather than `degraded`. */
const CRASHED_AFTER = 4;
/** How long after its CDP connection closed a Chrome that is exiting anyway gets to say so. */
const EXIT_NOTICE_MS = 1000;

/**
 * A Chrome that tabmux launches on the profile's own user-data-dir. A Chrome that dies, or whose CDP connection
 * closes (the guard lives on that connection, so Chrome is never left running without it), is relaunched on the
 * same user-data-dir with backoff: 0.5 s, 1 s, 2 s … up to 30 s; from the fourth loss in a row the state is
 * `crashed` with the last error, and a quiet two minutes starts over.
 */
export class LaunchedBrowser extends EventEmitter<ProfileBrowserEvents> implements ProfileBrowser {
  readonly kind = 'launched';
  state: BrowserState = 'stopped';
  lastError: string | null = null;
  readonly #options: LaunchedBrowserOptions;
  readonly #backoff = new Backoff({ initialMs: 500, maxMs: 30_000, resetAfterMs: 120_000 });
  #executable: string | undefined;
  #run: Run | undefined;
  #launching: Promise<Run> | undefined;
  #closing: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** A Chrome a dead daemon left, to take over on the first launch instead of starting another (see adopt). */
  #orphan: OrphanChrome | undefined;

  constructor(options: LaunchedBrowserOptions) {
    super();
    this.#options = options;
  }

  /**
   * Has the first launch take over this Chrome, which a daemon that died left running with its tabs, rather than
   * start another. Call before start(); a Chrome that cannot be connected to and prepared is closed, and a new one
   * launched as usual.
   */
  adopt(orphan: OrphanChrome): void {
    this.#orphan = orphan;
  }

  /** Whether the running Chrome was adopted from a daemon that died. */
  get adopted(): boolean {
    return this.#run?.chrome.adopted === true;
  }

  record(): ChromeRecord {
    const chrome = this.#run?.chrome;
    return chrome?.running === true
      ? { chromePid: chrome.pid, chromePort: chrome.port, watchdogPid: chrome.watchdogPid ?? null }
      : { chromePid: null, chromePort: null, watchdogPid: null };
  }

  async start(): Promise<void> {
    this.#executable = findChrome(this.#options.chrome);
    this.#setState('starting', null);
    await this.#launch();
    this.#setState('ready', null);
  }

  endpoint(): BrowserEndpoint | undefined {
    const run = this.#run;
    return run && this.state === 'ready' ? { kind: 'browserUrl', url: run.chrome.browserUrl } : undefined;
  }

  ensure(): Promise<BrowserEndpoint> {
    const endpoint = this.endpoint();
    if (!endpoint) {
      const why = this.lastError ? `: ${this.lastError}` : '';
      return Promise.reject(new TabmuxError('upstream_unavailable', `Chrome is not running${why}; it is being relaunched, retry shortly`));
    }
    return Promise.resolve(endpoint);
  }

  async ready(): Promise<void> {
    await this.ensure();
  }

  connection(): Connection | undefined {
    return this.state === 'ready' ? this.#run?.connection : undefined;
  }

  info(): LaunchedBrowserInfo {
    const chrome = this.#run?.chrome;
    const running = chrome?.running === true;
    return {
      kind: 'launched',
      pid: running ? chrome.pid : null,
      port: running ? chrome.port : null,
      browserUrl: running ? chrome.browserUrl : null,
      userDataDir: this.#options.userDataDir,
      headless: this.#options.headless,
      executable: this.#executable ?? null,
    };
  }

  close(): Promise<void> {
    this.#closing ??= this.#end(async (run) => {
      await run.chrome.close(run.connection);
      run.connection.dispose();
    });
    return this.#closing;
  }

  /**
   * Lets go of Chrome without closing it (`daemon restart`): the daemon's connection goes, Chrome keeps running with
   * its tabs, and its watchdog leaves it to the next daemon for the grace period (see ChromeWatchdog).
   */
  detach(): Promise<void> {
    this.#closing ??= this.#end((run) => {
      run.connection.dispose();
      run.chrome.release();
      return Promise.resolve();
    });
    return this.#closing;
  }

  /** Stops relaunching, waits for a launch under way, then ends the running Chrome's run as `finish` says. */
  async #end(finish: (run: Run) => Promise<void>): Promise<void> {
    this.#setState('closing', null);
    this.#wake?.();
    await this.#launching?.catch(() => undefined);
    const run = this.#run;
    this.#run = undefined;
    if (run) {
      await finish(run);
    }
    this.#setState('closed', null);
  }

  /** Launches Chrome, opens the daemon's connection and prepares it; on any failure nothing is left running. */
  #launch(): Promise<Run> {
    const launching = this.#launchOnce().finally(() => {
      this.#launching = undefined;
    });
    this.#launching = launching;
    return launching;
  }

  async #launchOnce(): Promise<Run> {
    const orphan = this.#orphan;
    this.#orphan = undefined;
    if (orphan) {
      try {
        return await this.#prepareRun(ChromeProcess.adopt(orphan, this.#options.orphanGraceMs));
      } catch (error) {
        this.#options.logger.warn(`could not adopt Chrome pid ${orphan.pid} (${TabmuxError.from(error).message}); launching another`);
      }
    }
    const { logger, userDataDir, headless, extraArgs, orphanGraceMs } = this.#options;
    const executable = this.#executable ?? findChrome(this.#options.chrome);
    // The daemon's CDP modules load while Chrome starts in its own processes, not before or after.
    const onSpawned = (): void => void loadCdpModules().catch(() => undefined);
    const chrome = await ChromeProcess.launch({ executable, userDataDir, headless, extraArgs, logger: logger.child('chrome'), onSpawned, orphanGraceMs });
    return this.#prepareRun(chrome);
  }

  /** Opens the daemon's connection to a started Chrome and prepares it; on any failure the Chrome is closed. */
  async #prepareRun(chrome: ChromeProcess): Promise<Run> {
    const { prepare } = this.#options;
    let connection: Connection | undefined;
    try {
      connection = await openCdpConnection(chrome.webSocketUrl);
      if (this.#closing) {
        throw new TabmuxError('daemon_stopping', 'the browser is being closed');
      }
      await prepare({ connection, debuggingPort: chrome.port });
    } catch (error) {
      await chrome.close(connection);
      connection?.dispose();
      const failure = TabmuxError.from(error);
      throw failure.code === 'internal' ? new TabmuxError('browser_unavailable', `Chrome started but could not be prepared: ${failure.message}`, { cause: error }) : failure;
    }
    const run: Run = { chrome, connection };
    this.#run = run;
    void chrome.exited.then((exit) => this.#onLost(run, `Chrome exited unexpectedly (${exit.signal ?? `code ${String(exit.code)}`})`));
    onDisconnected(connection, () => void this.#onDisconnected(run));
    return run;
  }

  /** The connection closed: either Chrome is exiting (its exit is the better reason), or the connection alone died. */
  async #onDisconnected(run: Run): Promise<void> {
    if (this.#closing) {
      // Closed or let go on purpose: nothing to wait for (a pending timer would only hold a restarting daemon's exit).
      return;
    }
    const exited = await withDeadline(run.chrome.exited.then(() => true), EXIT_NOTICE_MS, false);
    if (!exited) {
      await this.#onLost(run, 'the DevTools connection to Chrome closed');
    }
  }

  /**
   * The run is gone: say so (the daemon fails running calls and tells sessions), make sure nothing of it is left,
   * then relaunch with backoff until it works or the browser is closed. Never a busy loop.
   */
  async #onLost(run: Run, reason: string): Promise<void> {
    if (this.#closing || this.#run !== run) {
      return;
    }
    const { logger } = this.#options;
    this.#run = undefined;
    this.#backoff.fail();
    this.#setState('degraded', reason);
    logger.error(reason);
    this.emit('lost', reason);
    run.connection.dispose();
    await run.chrome.close();
    while (!this.#closing) {
      const delay = this.#backoff.delayMs();
      if (this.#backoff.failures >= CRASHED_AFTER) {
        this.#setState('crashed', `${this.lastError ?? 'Chrome keeps exiting'}; retrying every ${Math.round(delay / 1000)} s`);
      }
      await this.#sleep(delay);
      if (this.#closing) {
        return;
      }
      try {
        const next = await this.#launch();
        if (this.#closing) {
          // close() waited for this launch and closes the run it left.
          return;
        }
        logger.info(`Chrome relaunched (pid ${next.chrome.pid})`);
        this.#setState('ready', null);
        this.emit('back', { connection: next.connection, debuggingPort: next.chrome.port });
        return;
      } catch (error) {
        this.#backoff.fail();
        this.#setState(this.state, `Chrome relaunch failed: ${TabmuxError.from(error).message}`);
        logger.error(this.lastError ?? 'Chrome relaunch failed');
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  #setState(state: BrowserState, lastError: string | null): void {
    this.state = state;
    this.lastError = lastError;
    this.emit('state', state, lastError);
  }
}
