import { TabmuxError } from '../../../shared/errors.js';
import type { OwnedPage, Session, SessionLookup } from './Session.js';
import type { Worker } from './Worker.js';
import { listPages } from './pageSync.js';
import { replyOf, type ListedPage } from '../upstream/upstreamReply.js';

export interface TabIdentityOptions {
  /** Whether upstream can tell tab ids at all (its `get_tab_id` tool is behind a flag). */
  available: () => boolean;
  /** Every live session, whatever its worker. */
  sessions: () => Iterable<Session>;
  sessionById: SessionLookup;
}

/**
 * Which Chrome tab each upstream page id is, and which session owns a tab whichever worker it is seen from. Page ids
 * are per worker process and change when a worker restarts; Chrome's tab id is the same in every process, so it is
 * the key across workers and restarts. A worker caches what it learned until its upstream goes.
 */
export class TabIdentity {
  /** Popups whose opener's tab id was not known yet when the browser reported them: tab id -> opener's tab id. */
  readonly #orphanPopups = new Map<string, string>();

  constructor(private readonly options: TabIdentityOptions) {}

  /** Chrome's tab id of a page of this worker, or undefined when upstream cannot tell. */
  async tabIdOf(worker: Worker, pageId: number): Promise<string | undefined> {
    const cached = worker.tabIds.get(pageId);
    if (cached !== undefined) {
      return cached;
    }
    const result = await worker.call('get_tab_id', { pageId });
    const tabId = result.isError ? undefined : replyOf(result).tabId;
    if (tabId !== undefined) {
      worker.tabIds.set(pageId, tabId);
    }
    return tabId;
  }

  /** Every tab the worker sees: Chrome tab id -> the worker's page id. */
  async pageIdsByTab(worker: Worker): Promise<Map<string, number>> {
    return new Map([...(await this.#listedByTab(worker))].map(([tabId, page]) => [tabId, page.id]));
  }

  /** Every tab the worker lists, by Chrome tab id. */
  async #listedByTab(worker: Worker): Promise<Map<string, ListedPage>> {
    const map = new Map<string, ListedPage>();
    for (const page of await listPages(worker, this.options.sessionById)) {
      const tabId = await this.tabIdOf(worker, page.id);
      if (tabId !== undefined) {
        map.set(tabId, page);
      }
    }
    return map;
  }

  /** Learns the tab id of every page the session owns that lacks one, so its tabs can be found after a restart. */
  async learn(session: Session, worker: Worker): Promise<void> {
    if (!this.options.available()) {
      return;
    }
    for (const page of session.pages.values()) {
      if (page.tabId !== null) {
        continue;
      }
      const tabId = await this.tabIdOf(worker, page.pageId);
      if (tabId !== undefined) {
        page.tabId = tabId;
        this.#adoptOrphansOf(tabId, session);
      }
    }
  }

  /** The session owning a Chrome tab, on whichever worker: as one of its pages, or as a popup not yet seen by its worker. */
  sessionOwningTab(tabId: string): Session | undefined {
    return this.pageOfTab(tabId)?.session;
  }

  /** The session and page a Chrome tab belongs to; `page` is undefined for a popup its worker has not listed yet. */
  pageOfTab(tabId: string): { session: Session; page: OwnedPage | undefined } | undefined {
    for (const session of this.options.sessions()) {
      for (const page of session.pages.values()) {
        if (page.tabId === tabId) {
          return { session, page };
        }
      }
      if (session.pendingTabs.has(tabId)) {
        return { session, page: undefined };
      }
    }
    return undefined;
  }

  /**
   * The browser reports a tab opened by another tab's page, whenever that happened: it belongs to the session that
   * owns the opener. The browser's opener id is the truth here, never a page list a page could have written.
   * Returns the session that now owns it.
   */
  popupOpened(tabId: string, openerTabId: string): Session | undefined {
    if (this.sessionOwningTab(tabId)) {
      return undefined;
    }
    const owner = this.sessionOwningTab(openerTabId);
    if (!owner) {
      // The opener may be a page whose tab id its session learns at the end of the call that opened it.
      this.#orphanPopups.set(tabId, openerTabId);
      return undefined;
    }
    owner.pendingTabs.add(tabId);
    this.#adoptOrphansOf(tabId, owner);
    return owner;
  }

  /** A tab closed: it is nobody's popup-to-be any more. */
  tabClosed(tabId: string): void {
    this.#orphanPopups.delete(tabId);
    for (const session of this.options.sessions()) {
      session.pendingTabs.delete(tabId);
    }
  }

  /**
   * Turns the session's pending popups that its worker now lists into pages of the session (origin `opened`), with a
   * note for the agent. Popups upstream already reported for a call of the session are pages already.
   */
  async adoptPending(session: Session, worker: Worker): Promise<void> {
    if (session.pendingTabs.size === 0 || !this.options.available()) {
      return;
    }
    const byTab = await this.#listedByTab(worker);
    for (const tabId of [...session.pendingTabs]) {
      const listed = byTab.get(tabId);
      if (listed === undefined) {
        continue;
      }
      session.pendingTabs.delete(tabId);
      const pageId = listed.id;
      if (worker.owners.has(pageId) || session.pages.has(pageId)) {
        continue;
      }
      const page = session.addPage(pageId, 'opened', listed.url, listed.title);
      page.tabId = tabId;
      worker.owners.set(pageId, session.id);
      session.notes.push(`Note: page ${pageId} (${page.url || 'no url'}) was opened by one of your pages and is now yours; select_page to use it.`);
    }
  }

  #adoptOrphansOf(openerTabId: string, owner: Session): void {
    for (const [tabId, opener] of [...this.#orphanPopups]) {
      if (opener === openerTabId) {
        this.#orphanPopups.delete(tabId);
        owner.pendingTabs.add(tabId);
        this.#adoptOrphansOf(tabId, owner);
      }
    }
  }

  /** The session owning a page of this worker, whichever worker that session uses. */
  async ownerOf(worker: Worker, pageId: number): Promise<Session | undefined> {
    const local = worker.owners.get(pageId);
    if (local !== undefined) {
      return this.options.sessionById(local);
    }
    if (!this.options.available()) {
      return undefined;
    }
    const tabId = await this.tabIdOf(worker, pageId);
    return tabId === undefined ? undefined : this.sessionOwningTab(tabId);
  }

  /** The pages among `pageIds` (this worker's) that no session on any worker owns. */
  async unowned(worker: Worker, pageIds: readonly number[]): Promise<Set<number>> {
    const unowned = new Set<number>();
    for (const pageId of pageIds) {
      if (worker.owners.has(pageId)) {
        continue;
      }
      const tabId = await this.tabIdOf(worker, pageId);
      if (tabId === undefined || !this.sessionOwningTab(tabId)) {
        unowned.add(pageId);
      }
    }
    return unowned;
  }

  /** Refuses a page the session does not own: another session's is a conflict, never a steal. */
  async assertOwn(session: Session, worker: Worker, pageId: number): Promise<void> {
    if (session.pages.has(pageId)) {
      return;
    }
    if (worker.owners.has(pageId) || (await this.ownerOf(worker, pageId).catch(() => undefined))) {
      throw new TabmuxError('page_conflict', `page ${pageId} belongs to another session; call list_pages to see your own pages`);
    }
    throw new TabmuxError('unknown_page', `page ${pageId} is not one of your pages; call list_pages to see them (a human can attach a tab to you with tabmux session attach)`);
  }
}
