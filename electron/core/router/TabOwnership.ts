import type { DownloadOwner } from '../browser/BrowserDownloads.js';
import type { Logger } from '../platform/Logger.js';
import type { RouterSettings } from './RouterSettings.js';
import type { Session } from './Session.js';
import type { SessionRegistry } from './SessionRegistry.js';
import type { SessionTabs } from './SessionTabs.js';
import { openerChain, sessionDownloads } from './sessionDownloads.js';
import type { TabIdentity } from './TabIdentity.js';
import type { Takeover } from './Takeover.js';
import type { WorkerPool } from './WorkerPool.js';

export interface TabOwnershipOptions {
  sessions: SessionRegistry;
  pool: WorkerPool;
  tabs: TabIdentity;
  /** The browser connection followed now, through `source`. */
  sessionTabs: SessionTabs;
  takeover: Takeover;
  settings: RouterSettings;
  /** The profile's folder for files tools read and write (a session's downloads go in its own folder there). */
  filesDir: string;
  logger: Logger;
  changed: (session: Session) => void;
}

/**
 * Sessions and Chrome's tabs by the browser's own ids, for the parts of the daemon that see tabs rather than
 * upstream's pages: whose a tab is (the guard, downloads, a person's input), what URL a page's tab shows, and the
 * script a given-up call left running in a session's tab.
 */
export class TabOwnership {
  constructor(private readonly options: TabOwnershipOptions) {}

  /**
   * Whether a page target is a session's tab, or was opened from one (a popup, whenever it opened): the tabs the
   * guard sends back from a browser page in a browser the user runs. Known from the browser's own tab and opener
   * ids; a tab not known yet counts as the user's.
   */
  isAgentPage(pageTargetId: string): boolean {
    const tab = this.options.sessionTabs.source?.list().find((candidate) => candidate.pageTargetId === pageTargetId);
    return tab !== undefined && this.sessionOfTab(tab.tabId) !== undefined;
  }

  /**
   * The session a Chrome tab belongs to: one of its pages, a popup pending for it, or a tab opened from one of its
   * tabs whose popup the router has not taken in yet (the browser's opener ids, whenever it opened). Undefined for a
   * tab of nobody's.
   */
  sessionOfTab(tabId: string): Session | undefined {
    const tabs = this.options.sessionTabs.source?.list() ?? [];
    let current: string | null = tabId;
    // Openers are followed a few steps up; a chain of popups longer than that is not worth a walk per event.
    for (let step = 0; current !== null && step < 8; step++) {
      const owner = this.options.tabs.sessionOwningTab(current);
      if (owner) {
        return owner;
      }
      const id: string = current;
      current = tabs.find((candidate) => candidate.tabId === id)?.openerTabId ?? null;
    }
    return undefined;
  }

  /**
   * Where a download started in a Chrome tab goes: the session owning the tab or one of the tabs that opened it, by
   * the browser's own ids; undefined for a tab of nobody's. A tab a session is opening right now (the download began
   * while its new_page loaded) becomes the session's when that call ends, so an unowned tab is looked at again once
   * the calls running now have ended.
   */
  async downloadOwner(tabId: string): Promise<DownloadOwner | undefined> {
    const { sessionTabs, tabs, pool, settings, filesDir, changed, logger } = this.options;
    const chain = openerChain(sessionTabs.source?.list() ?? [], tabId);
    const owner = (): Session | undefined => chain.map((id) => tabs.sessionOwningTab(id)).find((session) => session !== undefined);
    let session = owner();
    if (!session) {
      const running = pool.queue().filter((entry) => entry.state === 'running');
      await Promise.all(running.map((entry) => pool.at(entry.worker)?.queue.whenFinished(entry.callId, settings.callTimeoutMs) ?? Promise.resolve(true)));
      session = owner();
    }
    return session && sessionDownloads(session, filesDir, changed, logger);
  }

  /**
   * A person is about to send input to a tab (takeover): refused while the session owning it runs. Returns a
   * function to call once the input was sent, which leaves the session a note and makes its tokens stale.
   */
  takeoverInput(tabId: string): () => void {
    const { tabs, sessions, takeover, sessionTabs, changed } = this.options;
    const owner = tabs.sessionOwningTab(tabId) ?? sessions.all().find((session) => session.pendingTabs.has(tabId));
    const session = takeover.check(tabId, owner);
    return () => {
      if (session && !session.ended) {
        takeover.touched(session, sessionTabs.source?.list().find((tab) => tab.tabId === tabId)?.url);
        changed(session);
      }
    };
  }

  /**
   * A call of this session was given up on while it ran: the script of its current page is ended through the daemon's own
   * browser connection (a page in a busy loop holds upstream's call, and every later call to that page, forever).
   */
  async endAtBrowser(sessionId: string): Promise<void> {
    const session = this.options.sessions.find(sessionId);
    const source = this.options.sessionTabs.source;
    if (!session || !source?.stopScripts) {
      return;
    }
    // Only the page its calls act on: terminating a page that runs no script would end that page's next one.
    const tabId = session.currentPage?.tabId;
    if (tabId) {
      await source.stopScripts(tabId);
    }
  }

  /**
   * The URL of a tab that holds a page, as the browser reports it, or undefined: what `list()` would give for it,
   * looked up by id where the source can, since every call asks (its page before and after).
   */
  pageTabUrl(tabId: string): string | undefined {
    const source = this.options.sessionTabs.source;
    const tab = source?.get ? source.get(tabId) : source?.list().find((candidate) => candidate.tabId === tabId);
    return tab === undefined || tab.pageTargetId === null ? undefined : tab.url;
  }
}
