import { EventEmitter } from 'node:events';
import type { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { z } from 'zod';
import { TabmuxError } from '../../../shared/errors.js';
import type { ExternalBrowserInfo, ExternalBrowserState } from '../../../shared/model.js';
import { Backoff } from '../Backoff.js';
import type { Logger } from '../Logger.js';
import { redactUrl } from '../browserUrl.js';
import { onDisconnected, openCdpConnection } from './CdpConnection.js';
import type { BrowserEndpoint, BrowserRun, ProfileBrowser, ProfileBrowserEvents, ProfileBrowserHooks } from './ProfileBrowser.js';

export interface ExternalBrowserOptions extends ProfileBrowserHooks {
  /** The browser's HTTP discovery address, e.g. `http://127.0.0.1:9222`. */
  browserUrl: string;
  logger: Logger;
}

/** How long HTTP discovery may take: a browser that does not answer by then counts as unreachable. */
const DISCOVERY_TIMEOUT_MS = 5000;

const versionSchema = z.object({ webSocketDebuggerUrl: z.string() });

/**
 * A browser someone else runs (a Chrome the user started with `--remote-debugging-port`), reached by HTTP discovery.
 * tabmux only connects to it: it never closes or kills it and never touches tabs it did not open; `close()` just
 * disconnects. The connection is made when first needed. A browser that goes away is `disconnected`: the daemon
 * is told it was lost, reconnection is retried in the background with backoff (0.5 s doubling up to a 30 s
 * cooldown), and a call that needs the browser tries at once, so it fails fast while the browser is gone and works
 * as soon as it is back.
 */
export class ExternalBrowser extends EventEmitter<ProfileBrowserEvents> implements ProfileBrowser {
  readonly kind = 'external';
  state: ExternalBrowserState = 'pending';
  lastError: string | null = null;
  readonly #options: ExternalBrowserOptions;
  readonly #backoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
  #run: BrowserRun | undefined;
  #connecting: Promise<BrowserRun> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #nextRetryAt: number | null = null;
  /** Whether a run was ever prepared: the next one is then a comeback (`back`). */
  #connectedBefore = false;
  #closed = false;

  constructor(options: ExternalBrowserOptions) {
    super();
    this.#options = options;
  }

  /** Nothing to do yet: the first worker's start connects (see `ensure`). */
  start(): Promise<void> {
    return Promise.resolve();
  }

  async ensure(): Promise<BrowserEndpoint> {
    if (this.#closed) {
      throw new TabmuxError('daemon_stopping', 'the daemon is stopping');
    }
    if (!this.#run) {
      await this.#connect();
    }
    return { kind: 'browserUrl', url: this.#options.browserUrl };
  }

  endpoint(): BrowserEndpoint | undefined {
    return this.#run ? { kind: 'browserUrl', url: this.#options.browserUrl } : undefined;
  }

  connection(): Connection | undefined {
    return this.#run?.connection;
  }

  info(): ExternalBrowserInfo {
    return {
      kind: 'external',
      state: this.state,
      endpoint: redactUrl(this.#options.browserUrl),
      lastError: this.lastError,
      attempts: this.#backoff.failures,
      nextRetryAt: this.#nextRetryAt,
    };
  }

  /** Disconnects; the browser and its tabs are left as they are. */
  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    this.#cancelRetry();
    await this.#connecting?.catch(() => undefined);
    const run = this.#run;
    this.#run = undefined;
    run?.connection.dispose();
    this.#setState('disconnected', null);
  }

  /** One attempt at a time; callers that arrive meanwhile share it. */
  #connect(): Promise<BrowserRun> {
    this.#connecting ??= this.#connectOnce().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connectOnce(): Promise<BrowserRun> {
    const { browserUrl, logger, prepare } = this.#options;
    const shown = redactUrl(browserUrl);
    this.#cancelRetry();
    this.#setState('connecting', this.lastError);
    let connection: Connection | undefined;
    let run: BrowserRun;
    try {
      const webSocketUrl = await discover(browserUrl);
      connection = await openCdpConnection(webSocketUrl, logger.child('cdp'));
      if (this.#closed) {
        throw new TabmuxError('daemon_stopping', 'the daemon is stopping');
      }
      const prepared: BrowserRun = { connection, debuggingPort: debuggingPortOf(webSocketUrl, browserUrl) };
      await prepare(prepared);
      run = prepared;
    } catch (error) {
      connection?.dispose();
      const failure = TabmuxError.from(error);
      if (this.#closed) {
        throw failure;
      }
      this.#backoff.fail();
      const message = `the browser at ${shown} is not reachable (${failure.message}); start it with --remote-debugging-port (or check the profile's --browser-url) and retry`;
      this.#setState('disconnected', message);
      this.#scheduleRetry();
      logger.warn(message);
      throw new TabmuxError('browser_unavailable', message, { cause: error });
    }
    this.#run = run;
    onDisconnected(run.connection, () => this.#onLost(run));
    this.#backoff.reset();
    this.#setState('connected', null);
    logger.info(`connected to the browser at ${shown}`);
    if (this.#connectedBefore) {
      this.emit('back', run);
    }
    this.#connectedBefore = true;
    return run;
  }

  /** The browser went away (or closed the connection): tell the daemon, then keep trying to get it back. */
  #onLost(run: BrowserRun): void {
    if (this.#closed || this.#run !== run) {
      return;
    }
    this.#run = undefined;
    const reason = `the browser at ${redactUrl(this.#options.browserUrl)} went away (its DevTools connection closed)`;
    this.#options.logger.error(reason);
    this.#backoff.fail();
    this.#setState('disconnected', reason);
    this.emit('lost', reason);
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    this.#cancelRetry();
    if (this.#closed) {
      return;
    }
    const delay = this.#backoff.delayMs();
    this.#nextRetryAt = Date.now() + delay;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#nextRetryAt = null;
      // A failure has already rescheduled the next attempt and said why.
      this.#connect().catch(() => undefined);
    }, delay);
    this.#retry.unref();
  }

  #cancelRetry(): void {
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#nextRetryAt = null;
  }

  #setState(state: ExternalBrowserState, lastError: string | null): void {
    this.state = state;
    this.lastError = lastError;
    this.emit('state', state, lastError);
  }
}

/** The browser-level WebSocket endpoint, from `/json/version`. */
async function discover(browserUrl: string): Promise<string> {
  const versionUrl = new URL('json/version', browserUrl.endsWith('/') ? browserUrl : `${browserUrl}/`);
  let body: unknown;
  try {
    const response = await fetch(versionUrl, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
    if (!response.ok) {
      throw new Error(`HTTP ${response.status} from /json/version`);
    }
    body = await response.json();
  } catch (error) {
    throw new TabmuxError('browser_unavailable', describeFetchError(error), { cause: error });
  }
  const parsed = versionSchema.safeParse(body);
  if (!parsed.success) {
    throw new TabmuxError('browser_unavailable', '/json/version did not name a webSocketDebuggerUrl; is this a Chrome DevTools endpoint?');
  }
  return parsed.data.webSocketDebuggerUrl;
}

/** `fetch` hides the reason (ECONNREFUSED, a timeout) in `cause`. */
function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) {
    return String(error);
  }
  const cause: unknown = error.cause;
  if (cause instanceof Error && 'code' in cause && typeof cause.code === 'string') {
    return `${error.message}: ${cause.code}`;
  }
  return error.message;
}

/** The port the browser's DevTools endpoint listens on: what the control-surface guard keeps tabs away from. */
function debuggingPortOf(webSocketUrl: string, browserUrl: string): number | null {
  for (const candidate of [webSocketUrl, browserUrl]) {
    if (URL.canParse(candidate)) {
      const url = new URL(candidate);
      const port = url.port === '' ? (url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80) : Number(url.port);
      if (Number.isInteger(port) && port > 0) {
        return port;
      }
    }
  }
  return null;
}
