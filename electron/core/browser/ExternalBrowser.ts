import { EventEmitter } from 'node:events';
import type { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import * as z from 'zod/mini';
import '../../../shared/zodMessages.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { ExternalBrowserInfo, ExternalBrowserState } from '../../../shared/model.js';
import { Backoff } from '../platform/Backoff.js';
import { variablesIn } from '../profile/browserUrl.js';
import type { Logger } from '../platform/Logger.js';
import { onDisconnected, openCdpConnection } from './CdpConnection.js';
import { describeEndpoint, expandEndpoint, holdsCredentials, scrubSecrets, type ExternalEndpoint } from './externalEndpoint.js';
import { sharedBrowserEndpoint } from './sharedBrowserEndpoint.js';
import type { StartCommand } from './StartCommand.js';
import type { RelayTarget, WsRelay } from './WsRelay.js';
import type { BrowserEndpoint, BrowserRun, ProfileBrowser, ProfileBrowserEvents, ProfileBrowserHooks } from './ProfileBrowser.js';

export interface ExternalBrowserOptions extends ProfileBrowserHooks {
  /** Where the browser is, as the profile's config says (`${VAR}` references unread). */
  endpoint: ExternalEndpoint;
  logger: Logger;
  /** Where `${VAR}` references are read, at every connect; the daemon's environment unless a test says otherwise. */
  env?: NodeJS.ProcessEnv;
  /** Brings the browser up when it cannot be reached and something needs it. */
  startCommand?: StartCommand;
  /** How long to wait for the browser after running the start command. */
  startWaitMs?: number;
}

/** How long HTTP discovery may take: a browser that does not answer by then counts as unreachable. */
const DISCOVERY_TIMEOUT_MS = 5000;
const DEFAULT_START_WAIT_MS = 30_000;
const START_POLL_MS = 500;

const versionSchema = z.lazy(() => z.object({ webSocketDebuggerUrl: z.string() }));

interface ExternalRun extends BrowserRun {
  /** Where the relay sends the workers' connections in this run (the browser the daemon's connection is in). */
  relayTarget: RelayTarget | undefined;
}

/**
 * A browser someone else runs: a Chrome the user started with `--remote-debugging-port` (HTTP discovery), or a
 * browser-level WebSocket of a remote engine (browserless, Selenium Grid's `se:cdp`, a hosted service) with auth
 * headers. tabmux only connects to it: it never closes or kills it and never touches tabs it did not open; `close()`
 * just disconnects. The connection is made when first needed. A browser that goes away is `disconnected`: the daemon
 * is told it was lost, reconnection is retried in the background with backoff (0.5 s doubling up to a 30 s
 * cooldown), and a call that needs the browser tries at once (running the profile's start command first if there is
 * one), so it fails fast while the browser is gone and works as soon as it is back.
 *
 * Secrets (`${VAR}` values, header values, a token in the URL) are read at connect time, scrubbed from every message
 * and never given to the workers: when the endpoint holds any, the workers reach the browser through a loopback
 * relay that adds them.
 */
export class ExternalBrowser extends EventEmitter<ProfileBrowserEvents> implements ProfileBrowser {
  readonly kind = 'external';
  state: ExternalBrowserState = 'pending';
  lastError: string | null = null;
  readonly #options: ExternalBrowserOptions;
  readonly #shown: string;
  readonly #backoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
  #run: ExternalRun | undefined;
  /** Carries the workers' connections when the endpoint holds credentials, which must stay off their command lines. */
  #relay: Promise<WsRelay> | undefined;
  #connecting: Promise<ExternalRun> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #nextRetryAt: number | null = null;
  /** Whether a run was ever prepared: the next one is then a comeback (`back`). */
  #connectedBefore = false;
  #closed = false;

  constructor(options: ExternalBrowserOptions) {
    super();
    this.#options = options;
    this.#shown = describeEndpoint(options.endpoint);
  }

  /** Nothing to do yet: the first call that needs the browser connects (see `ready`). */
  start(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Where the workers connect; it does not connect: upstream reaches the browser only inside a call, after `ready`.
   * An endpoint with credentials gives the address of the daemon's loopback relay instead.
   */
  async ensure(): Promise<BrowserEndpoint> {
    if (this.#closed) {
      throw new TabmuxError('daemon_stopping', 'the daemon is stopping');
    }
    const { endpoint } = this.#options;
    const hiddenEnv = [endpoint.url, ...(endpoint.kind === 'wsEndpoint' ? Object.values(endpoint.headers) : [])].flatMap(variablesIn);
    if (endpoint.kind === 'browserUrl' && !holdsCredentials(endpoint.url)) {
      return { kind: 'browserUrl', url: endpoint.url };
    }
    // Loaded here, not with the daemon: the relay's HTTP server and WebSocket library are only for credentialed
    // endpoints, and a daemon that launches its own Chrome loads them after Chrome is on its way.
    this.#relay ??= import('./WsRelay.js').then(({ WsRelay: Relay }) => Relay.start({ target: () => this.#run?.relayTarget, logger: this.#options.logger.child('relay') }));
    return { kind: 'wsEndpoint', url: (await this.#relay).url, hiddenEnv };
  }

  endpoint(): BrowserEndpoint | undefined {
    return undefined;
  }

  /** Connects now unless connected, whatever the backoff says; runs the start command when the browser is not there. */
  async ready(): Promise<void> {
    if (this.#closed) {
      throw new TabmuxError('daemon_stopping', 'the daemon is stopping');
    }
    if (!this.#run) {
      await this.#connect(true);
    }
  }

  connection(): Connection | undefined {
    return this.#run?.connection;
  }

  info(): ExternalBrowserInfo {
    return {
      kind: 'external',
      state: this.state,
      endpoint: this.#shown,
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
    await this.#relay?.then((relay) => relay.close(), () => undefined);
    run?.connection.dispose();
    this.#setState('disconnected', null);
  }

  /** One attempt at a time; callers that arrive meanwhile share it. */
  #connect(mayStart: boolean): Promise<ExternalRun> {
    this.#connecting ??= this.#connectOnce(mayStart).finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connectOnce(mayStart: boolean): Promise<ExternalRun> {
    const { logger } = this.#options;
    this.#cancelRetry();
    this.#setState('connecting', this.lastError);
    let run: ExternalRun;
    try {
      run = await this.#attemptOrStart(mayStart);
    } catch (error) {
      const failure = TabmuxError.from(error);
      if (this.#closed) {
        throw failure;
      }
      this.#backoff.fail();
      const message =
        failure.code === 'browser_busy'
          ? failure.message
          : this.#options.endpoint.kind === 'browserUrl'
            ? `the browser at ${this.#shown} is not reachable (${failure.message}); start it with --remote-debugging-port (or check the profile's --browser-url) and retry`
            : `the browser at ${this.#shown} is not reachable (${failure.message}); check that the engine runs and the profile's --ws-endpoint and headers, then retry`;
      this.#setState('disconnected', message);
      this.#scheduleRetry();
      logger.warn(message);
      throw new TabmuxError(failure.code === 'browser_busy' ? 'browser_busy' : 'browser_unavailable', message);
    }
    this.#run = run;
    onDisconnected(run.connection, () => this.#onLost(run));
    this.#options.startCommand?.succeeded();
    this.#backoff.reset();
    this.#setState('connected', null);
    logger.info(`connected to the browser at ${this.#shown}`);
    if (this.#connectedBefore) {
      this.emit('back', run);
    }
    this.#connectedBefore = true;
    return run;
  }

  /** One attempt; when the browser is not there and a call needs it, the start command runs and it is awaited. */
  async #attemptOrStart(mayStart: boolean): Promise<ExternalRun> {
    try {
      return await this.#attempt();
    } catch (error) {
      const failure = TabmuxError.from(error);
      const { startCommand } = this.#options;
      if (!mayStart || startCommand === undefined || failure.code !== 'browser_unavailable' || !startCommand.run()) {
        throw failure;
      }
      const waitMs = this.#options.startWaitMs ?? DEFAULT_START_WAIT_MS;
      const deadline = Date.now() + waitMs;
      let last = failure;
      while (Date.now() < deadline && !this.#closed) {
        await new Promise((resolve) => setTimeout(resolve, START_POLL_MS));
        try {
          return await this.#attempt();
        } catch (retryError) {
          last = TabmuxError.from(retryError);
        }
      }
      throw new TabmuxError(last.code, `${last.message} (the profile's start command ran, and the browser did not answer within ${Math.round(waitMs / 1000)} s)`);
    }
  }

  /** Reads the secrets, opens the daemon's connection, finds where the workers go and prepares the run. */
  async #attempt(): Promise<ExternalRun> {
    const { logger, prepare } = this.#options;
    const expanded = expandEndpoint(this.#options.endpoint, this.#options.env ?? process.env);
    const scrub = (text: string): string => scrubSecrets(text, expanded.secrets);
    let connection: Connection | undefined;
    try {
      const webSocketUrl = expanded.kind === 'browserUrl' ? await discover(expanded.url) : expanded.url;
      connection = await openCdpConnection(webSocketUrl, { headers: expanded.headers, shownUrl: this.#shown });
      // Over HTTP discovery the browser names its one endpoint; an engine's WebSocket may start a browser per connection.
      const relayTarget: RelayTarget =
        expanded.kind === 'browserUrl'
          ? { url: webSocketUrl, headers: {} }
          : { url: await sharedBrowserEndpoint(connection, { url: webSocketUrl, headers: expanded.headers, shownUrl: this.#shown, logger }), headers: expanded.headers };
      if (this.#closed) {
        throw new TabmuxError('daemon_stopping', 'the daemon is stopping');
      }
      const run: ExternalRun = { connection, debuggingPort: debuggingPortOf(webSocketUrl, expanded.url), relayTarget };
      await prepare(run);
      return run;
    } catch (error) {
      connection?.dispose();
      const failure = TabmuxError.from(error);
      throw new TabmuxError(failure.code, scrub(failure.message), { cause: error });
    }
  }

  /** The browser went away (or closed the connection): tell the daemon, then keep trying to get it back. */
  #onLost(run: ExternalRun): void {
    if (this.#closed || this.#run !== run) {
      return;
    }
    this.#run = undefined;
    const reason = `the browser at ${this.#shown} went away (its DevTools connection closed)`;
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
      this.#connect(false).catch(() => undefined);
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
