import type { Protocol } from 'devtools-protocol';
import type { CDPSession } from 'puppeteer-core/internal/api/CDPSession.js';
import type { BrowserTab } from './BrowserTab.js';
import type { CdpConnection } from './CdpConnection.js';
import { withDeadline } from '../../../shared/withDeadline.js';

/** How long loading a crashed page again waits for the browser to start the navigation, and then for its load. */
const RELOAD_MS = 5_000;

/**
 * Which tabs' pages have crashed, from the browser's own events on the daemon's connection: `Target.targetCrashed`
 * names the page target and how its renderer process ended; `Inspector.targetReloadedAfterCrash` on the page's
 * session says it runs again. While a page is crashed the browser holds every command sent to it, unanswered, until
 * the page loads again; then it answers them all with an error. Nothing a page writes decides any of it.
 */
export class TabCrashes {
  readonly #connection: CdpConnection;
  readonly #tabOfPage: ReadonlyMap<string, string>;
  readonly #tabs: ReadonlyMap<string, BrowserTab>;
  readonly #pageSessions: ReadonlyMap<string, string>;
  readonly #changed: (tab: BrowserTab) => void;

  constructor(
    connection: CdpConnection,
    maps: { tabs: ReadonlyMap<string, BrowserTab>; tabOfPage: ReadonlyMap<string, string>; pageSessions: ReadonlyMap<string, string> },
    changed: (tab: BrowserTab) => void,
  ) {
    this.#connection = connection;
    this.#tabs = maps.tabs;
    this.#tabOfPage = maps.tabOfPage;
    this.#pageSessions = maps.pageSessions;
    this.#changed = changed;
    connection.on('Target.targetCrashed', (event: Protocol.Target.TargetCrashedEvent) => this.#onCrashed(event));
  }

  /** Follows the page a tab holds now, on its session of the daemon's connection: a new page has not crashed. */
  watch(tab: BrowserTab, sessionId: string, session: CDPSession): void {
    tab.crashed = null;
    session.on('Inspector.targetReloadedAfterCrash', () => {
      if (this.#pageSessions.get(tab.tabId) === sessionId && tab.crashed) {
        tab.crashed = null;
        this.#changed(tab);
      }
    });
  }

  /**
   * Loads `url` in a tab whose page crashed, on the daemon's connection: a navigation, which the browser starts in a
   * new renderer process (a reload would send a form's data again). True once the browser started it; resolves once
   * the page has loaded, or a few seconds later (a page may crash again as it loads).
   */
  async reload(tabId: string, url: string): Promise<boolean> {
    const sessionId = this.#pageSessions.get(tabId);
    const session = sessionId === undefined ? undefined : this.#connection.session(sessionId);
    if (!session) {
      return false;
    }
    let stopWaiting = (): void => undefined;
    const loaded = new Promise<void>((resolve) => {
      stopWaiting = () => {
        session.off('Page.loadEventFired', stopWaiting);
        resolve();
      };
      session.on('Page.loadEventFired', stopWaiting);
    });
    const started = session.send('Page.navigate', { url }).then(
      (answer) => answer.errorText === undefined,
      () => false,
    );
    const navigating = await withDeadline(started, RELOAD_MS, false);
    if (navigating) {
      await withDeadline(loaded, RELOAD_MS, undefined);
    }
    stopWaiting();
    return navigating;
  }

  #onCrashed(event: Protocol.Target.TargetCrashedEvent): void {
    const tabId = this.#tabOfPage.get(event.targetId);
    const tab = tabId === undefined ? undefined : this.#tabs.get(tabId);
    if (tab) {
      tab.crashed = { status: event.status, errorCode: event.errorCode, at: Date.now() };
      this.#changed(tab);
    }
  }
}
