import type { Protocol } from 'devtools-protocol';
import { DISCOVERED_TARGETS } from './BrowserTabs.js';
import type { CdpConnection } from './CdpConnection.js';
import { NO_FILES, type FileScope } from './fileAccess.js';
import type { UrlPolicy } from './urlPolicy.js';

export interface GuardOptions {
  /**
   * In a browser the user runs, only agents' tabs are sent back from a browser page: the user's own tabs (open
   * before tabmux connected, or opened by the user later) are theirs to take anywhere. When given, a page target is
   * sent back only if this says it is an agent's. Requests are policed in every tab either way.
   */
  isAgentPage?: (pageTargetId: string) => boolean;
  /**
   * Whose tab a frame is (a page target's id is its main frame's), for `file:` URLs: Chrome names the frame of every
   * paused request, so the answer comes from the browser's own ids. Without it no tab reads files.
   */
  fileScope?: (frameId: string) => Promise<FileScope>;
  /** The ports of tabmux's dashboards, as the policy refuses them; `followPorts` brings the interception in line. */
  dashboardPorts?: () => ReadonlySet<number>;
}

export interface GuardEvents {
  /** A request or navigation was refused (logged; tests watch it). */
  refused?: (what: { url: string; reason: string; kind: 'request' | 'navigation' }) => void;
}

/**
 * Keeps every tab away from the browser's control surface, whoever drives it: an agent's tool, a link, a redirect,
 * a script's fetch, a worker. Two layers on the daemon's own CDP connection:
 * - requests: `Fetch.enable` on the browser session pauses matching requests of every target (existing tabs, popups
 *   from their first request, frames, workers, redirect hops, CORS preflights); the policy fails the refused ones.
 *   Only requests to the DevTools port, to tabmux's dashboards' ports and `file:` URLs are paused, so the web at
 *   large pays nothing. (Chrome does not pause WebSocket handshakes; the DevTools endpoint and the dashboards refuse
 *   those from foreign origins themselves, and no tab can load a page at their origins.)
 *   A `file:` request is decided by whose tab made it: Chrome opens files itself, in its own process (so the daemon
 *   cannot tell what `/proc/self` means there), and names the frame of every paused request, which `fileScope` ties
 *   to a tab and its session; browser-wide Fetch covers every browser context, isolated ones included.
 * - navigations the network stack never sees (`chrome://`, `devtools://`): a tab that lands on one is sent back to
 *   `about:blank` at once. Agents' own navigations are refused before they reach upstream; this is the backstop.
 * Chrome drops the interception when this connection goes, so the connection's loss must stop the browser.
 */
export class ControlSurfaceGuard {
  readonly #connection: CdpConnection;
  readonly #policy: UrlPolicy;
  readonly #events: GuardEvents;
  readonly #resetting = new Set<string>();
  readonly #polices: (pageTargetId: string) => boolean;
  readonly #fileScope: (frameId: string) => Promise<FileScope>;
  readonly #port: number | null;
  readonly #dashboardPorts: () => ReadonlySet<number>;
  /** The patterns Chrome pauses requests for now, as last sent; changes are sent one at a time, in order. */
  #sent = '';
  #sending: Promise<void> = Promise.resolve();

  private constructor(connection: CdpConnection, policy: UrlPolicy, port: number | null, events: GuardEvents, options: GuardOptions) {
    this.#connection = connection;
    this.#policy = policy;
    this.#port = port;
    this.#events = events;
    this.#polices = options.isAgentPage ?? (() => true);
    const fileScope = options.fileScope;
    // A lookup that fails leaves the tab no files, as an unknown tab.
    this.#fileScope = fileScope ? (frameId) => fileScope(frameId).catch(() => NO_FILES) : () => Promise.resolve(NO_FILES);
    this.#dashboardPorts = options.dashboardPorts ?? (() => new Set());
  }

  static async install(connection: CdpConnection, policy: UrlPolicy, port: number | null, events: GuardEvents = {}, options: GuardOptions = {}): Promise<ControlSurfaceGuard> {
    const guard = new ControlSurfaceGuard(connection, policy, port, events, options);
    connection.on('Fetch.requestPaused', (event: Protocol.Fetch.RequestPausedEvent) => void guard.#onRequest(event));
    connection.on('Target.targetCreated', (event: Protocol.Target.TargetCreatedEvent) => void guard.#onTarget(event.targetInfo));
    connection.on('Target.targetInfoChanged', (event: Protocol.Target.TargetInfoChangedEvent) => void guard.#onTarget(event.targetInfo));
    await guard.followPorts();
    await connection.send('Target.setDiscoverTargets', { discover: true, filter: DISCOVERED_TARGETS });
    const { targetInfos } = await connection.send('Target.getTargets', { filter: DISCOVERED_TARGETS });
    for (const info of targetInfos) {
      void guard.#onTarget(info);
    }
    return guard;
  }

  /**
   * Pauses requests to the ports the policy refuses now (the DevTools port and every dashboard's): called again
   * whenever a dashboard starts or stops. `Fetch.enable` replaces the patterns as a whole; a request made before a
   * new port's pattern is in place is not paused, which is why a dashboard tells the daemons before it prints its link.
   */
  followPorts(): Promise<void> {
    const sending = this.#sending.then(async () => {
      const patterns = this.#patterns();
      const key = JSON.stringify(patterns);
      if (key !== this.#sent) {
        await this.#connection.send('Fetch.enable', { patterns });
        this.#sent = key;
      }
    });
    // A failed send fails its caller; the next change sends the patterns again.
    this.#sending = sending.catch(() => undefined);
    return sending;
  }

  #patterns(): Protocol.Fetch.RequestPattern[] {
    const patterns: Protocol.Fetch.RequestPattern[] = [
      { urlPattern: 'file:*', requestStage: 'Request' },
      { urlPattern: 'FILE:*', requestStage: 'Request' },
    ];
    const ports = [...(this.#port === null ? [] : [this.#port]), ...[...this.#dashboardPorts()].sort((a, b) => a - b)];
    for (const port of ports) {
      patterns.push({ urlPattern: `*:${port}/*`, requestStage: 'Request' }, { urlPattern: `*:${port}`, requestStage: 'Request' });
      // Chrome drops a scheme's default port from the URL: a server on port 80 or 443 is every URL of that scheme.
      const scheme = port === 80 ? 'http' : port === 443 ? 'https' : undefined;
      if (scheme !== undefined) {
        patterns.push({ urlPattern: `${scheme}://*`, requestStage: 'Request' });
      }
    }
    return patterns;
  }

  /** Whose tab asks matters for `file:` URLs only; other requests are decided at once. */
  #filesOf(url: string, frameId: string): Promise<FileScope> {
    return this.#policy.readsFile(url) ? this.#fileScope(frameId) : Promise.resolve(NO_FILES);
  }

  async #onRequest(event: Protocol.Fetch.RequestPausedEvent): Promise<void> {
    let reason: string | undefined;
    try {
      reason = this.#policy.requestRefusal(event.request.url, await this.#filesOf(event.request.url, event.frameId));
    } catch (error) {
      // A request that cannot be decided is not let through.
      reason = `it could not be checked (${error instanceof Error ? error.message : String(error)})`;
    }
    const reply = reason
      ? this.#connection.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
      : this.#connection.send('Fetch.continueRequest', { requestId: event.requestId });
    if (reason) {
      this.#events.refused?.({ url: event.request.url, reason, kind: 'request' });
    }
    // The request may be gone already (its tab closed); nothing is left to decide then.
    reply.catch(() => undefined);
  }

  async #onTarget(info: Protocol.Target.TargetInfo): Promise<void> {
    if (info.type !== 'page' || this.#resetting.has(info.targetId) || !this.#polices(info.targetId)) {
      return;
    }
    let reason: string | undefined;
    try {
      reason = this.#policy.navigationRefusal(info.url, await this.#filesOf(info.url, info.targetId));
    } catch (error) {
      reason = `it could not be checked (${error instanceof Error ? error.message : String(error)})`;
    }
    if (!reason || this.#resetting.has(info.targetId)) {
      return;
    }
    this.#events.refused?.({ url: info.url, reason, kind: 'navigation' });
    this.#resetting.add(info.targetId);
    void this.#reset(info.targetId).finally(() => this.#resetting.delete(info.targetId));
  }

  /** Sends the page back to about:blank; a page that cannot be navigated is closed. */
  async #reset(targetId: string): Promise<void> {
    try {
      const { sessionId } = await this.#connection.send('Target.attachToTarget', { targetId, flatten: true });
      const session = this.#connection.session(sessionId);
      try {
        await session?.send('Page.navigate', { url: 'about:blank' });
      } finally {
        await this.#connection.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
      }
    } catch {
      await this.#connection.send('Target.closeTarget', { targetId }).catch(() => undefined);
    }
  }
}
