import type { Protocol } from 'devtools-protocol';
import { DISCOVERED_TARGETS } from './BrowserTabs.js';
import type { CdpConnection } from './CdpConnection.js';
import type { UrlPolicy } from './urlPolicy.js';

export interface GuardOptions {
  /**
   * In a browser the user runs, only agents' tabs are sent back from a browser page: the user's own tabs (open
   * before tabmux connected, or opened by the user later) are theirs to take anywhere. When given, a page target is
   * sent back only if this says it is an agent's. Requests are policed in every tab either way.
   */
  isAgentPage?: (pageTargetId: string) => boolean;
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
 *   Only requests to the DevTools port and `file:` URLs are paused, so the web at large pays nothing.
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

  private constructor(connection: CdpConnection, policy: UrlPolicy, events: GuardEvents, options: GuardOptions) {
    this.#connection = connection;
    this.#policy = policy;
    this.#events = events;
    this.#polices = options.isAgentPage ?? (() => true);
  }

  static async install(connection: CdpConnection, policy: UrlPolicy, port: number | null, events: GuardEvents = {}, options: GuardOptions = {}): Promise<ControlSurfaceGuard> {
    const guard = new ControlSurfaceGuard(connection, policy, events, options);
    connection.on('Fetch.requestPaused', (event: Protocol.Fetch.RequestPausedEvent) => guard.#onRequest(event));
    connection.on('Target.targetCreated', (event: Protocol.Target.TargetCreatedEvent) => guard.#onTarget(event.targetInfo));
    connection.on('Target.targetInfoChanged', (event: Protocol.Target.TargetInfoChangedEvent) => guard.#onTarget(event.targetInfo));
    const patterns: Protocol.Fetch.RequestPattern[] = [
      { urlPattern: 'file:*', requestStage: 'Request' },
      { urlPattern: 'FILE:*', requestStage: 'Request' },
    ];
    if (port !== null) {
      patterns.push({ urlPattern: `*:${port}/*`, requestStage: 'Request' }, { urlPattern: `*:${port}`, requestStage: 'Request' });
    }
    await connection.send('Fetch.enable', { patterns });
    await connection.send('Target.setDiscoverTargets', { discover: true, filter: DISCOVERED_TARGETS });
    const { targetInfos } = await connection.send('Target.getTargets', { filter: DISCOVERED_TARGETS });
    for (const info of targetInfos) {
      guard.#onTarget(info);
    }
    return guard;
  }

  #onRequest(event: Protocol.Fetch.RequestPausedEvent): void {
    const reason = this.#policy.requestRefusal(event.request.url);
    const reply = reason
      ? this.#connection.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
      : this.#connection.send('Fetch.continueRequest', { requestId: event.requestId });
    if (reason) {
      this.#events.refused?.({ url: event.request.url, reason, kind: 'request' });
    }
    // The request may be gone already (its tab closed); nothing is left to decide then.
    reply.catch(() => undefined);
  }

  #onTarget(info: Protocol.Target.TargetInfo): void {
    if (info.type !== 'page' || this.#resetting.has(info.targetId) || !this.#polices(info.targetId)) {
      return;
    }
    const reason = this.#policy.navigationRefusal(info.url);
    if (!reason) {
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
