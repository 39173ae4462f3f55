import { TabmuxError } from '../../../shared/errors.js';
import type { BrowserTab, TabDialog } from '../browser/BrowserTab.js';
import type { OwnedPage, Session, SessionLookup } from './Session.js';
import type { Worker } from './Worker.js';
import { HeldTabs, silentPopups } from './heldTabs.js';
import { listedPage, listPages } from './pageSync.js';
import { sideCall, unlessTimedOut } from './sideCall.js';
import { replyOf, type ListedPage } from '../upstream/upstreamReply.js';
import type { TabView } from './TabView.js';

export interface TabIdentityOptions {
  /** Whether upstream can tell tab ids at all (its `get_tab_id` tool is behind a flag). */
  available: () => boolean;
  /** Every live session, whatever its worker. */
  sessions: () => Iterable<Session>;
  sessionById: SessionLookup;
}

/** How a page's tab was looked up: found, left for later (it may be held), or upstream could not tell. */
type Lookup = { tabId: string } | 'deferred' | 'unknown';

/**
 * Which Chrome tab each upstream page id is, and which session owns a tab whichever worker it is seen from. Page ids
 * are per worker process and change when a worker restarts; Chrome's tab id is the same in every process, so it is
 * the key across workers and restarts. A worker caches what it learned until its upstream goes.
 *
 * Upstream is asked (`get_tab_id`) only about pages that no dialog may be holding (see `HeldTabs`), and each asking
 * is bounded (`sideCall`): a page whose tab is not known yet is then left for a later call, never given to anyone.
 */
export class TabIdentity {
  /** Popups whose opener's tab id was not known yet when the browser reported them: tab id -> opener's tab id. */
  readonly #orphanPopups = new Map<string, string>();
  #browser: TabView | undefined;
  /** Dialogs of pending popups their session was told of: each is told once. */
  readonly #toldDialogs = new WeakSet<TabDialog>();
  /** Pending popups that did not respond, by tab id, whose session was told so: each is told once. */
  readonly #toldSilent = new Set<string>();
  /** Pages a restarted worker could not find again while a dialog held them, by tab id: they come back as they were. */
  readonly #setAside = new Map<string, OwnedPage>();

  constructor(private readonly options: TabIdentityOptions) {}

  /** Follows the browser's own view of its tabs (a relaunched browser gives a new one; none while reconnecting). */
  follow(browser: TabView | undefined): void {
    this.#browser = browser;
  }

  /** The browser's own view of its tabs, if the daemon has a connection to it now. */
  get browser(): TabView | undefined {
    return this.#browser;
  }

  /** The browser's tabs now, as its own connection reports them; empty without one. */
  browserTabs(): BrowserTab[] {
    return this.#browser?.list() ?? [];
  }

  /** The tabs upstream must not be asked about now. */
  held(): HeldTabs {
    return this.#browser ? new HeldTabs(this.#browser.list()) : HeldTabs.none;
  }

  /**
   * Chrome's tab id of a page of this worker, or undefined when it cannot be told now: upstream cannot tell, did not
   * answer in time, or the page may be held by a dialog (`url` is the page's URL as listed, for that check; by default
   * the worker's last list).
   */
  async tabIdOf(worker: Worker, pageId: number, url?: string): Promise<string | undefined> {
    const found = await unlessTimedOut(this.#lookup(worker, pageId, url, this.held()), 'unknown');
    return typeof found === 'string' ? undefined : found.tabId;
  }

  /** Throws `timeout` when upstream did not answer in time (its worker was replaced, so its page ids are void). */
  async #lookup(worker: Worker, pageId: number, url: string | undefined, held: HeldTabs): Promise<Lookup> {
    const cached = worker.tabIds.get(pageId);
    if (cached !== undefined) {
      return { tabId: cached };
    }
    if (held.mayHold(url ?? listedPage(worker, pageId)?.url)) {
      return 'deferred';
    }
    const result = await sideCall(worker, 'get_tab_id', { pageId });
    const tabId = result.isError ? undefined : replyOf(result).tabId;
    if (tabId === undefined) {
      return 'unknown';
    }
    worker.tabIds.set(pageId, tabId);
    return { tabId };
  }

  /**
   * Every tab the worker sees: Chrome tab id -> the worker's page id. Pages that may be held are left out; throws
   * `timeout` when the worker got stuck on one anyway (it is replaced, and its page ids with it).
   */
  async pageIdsByTab(worker: Worker): Promise<Map<string, number>> {
    return new Map([...(await this.#listedByTab(worker))].map(([tabId, page]) => [tabId, page.id]));
  }

  /**
   * The worker's page ids of the given tabs only (tab id -> the URL the session last saw there), for a session moving
   * to this worker: pages whose listed URL matches a wanted one are asked about first, and the lookups stop once every
   * wanted tab is found, so a worker that has seen few of the profile's tabs is not asked about all of them. The URL
   * only orders the lookups; which page is which tab comes from upstream's tab ids.
   */
  async pageIdsOfTabs(worker: Worker, wanted: ReadonlyMap<string, string>): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    const listed = await listPages(worker, this.options.sessionById);
    const hints = new Set(wanted.values());
    const ordered = [...listed.filter((page) => hints.has(page.url)), ...listed.filter((page) => !hints.has(page.url))];
    const held = this.held();
    for (const page of ordered) {
      if (found.size === wanted.size) {
        break;
      }
      const lookup = await this.#lookup(worker, page.id, page.url, held);
      if (typeof lookup !== 'string' && wanted.has(lookup.tabId)) {
        found.set(lookup.tabId, page.id);
      }
    }
    return found;
  }

  /** Every tab the worker lists, by Chrome tab id (see `pageIdsByTab`). */
  async #listedByTab(worker: Worker): Promise<Map<string, ListedPage>> {
    const map = new Map<string, ListedPage>();
    const listed = await listPages(worker, this.options.sessionById);
    const held = this.held();
    for (const page of listed) {
      const found = await this.#lookup(worker, page.id, page.url, held);
      if (typeof found !== 'string') {
        map.set(found.tabId, page);
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
      const tabId = await this.tabIdOf(worker, page.pageId, page.url);
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

  /**
   * A page of the session whose tab a fresh upstream cannot be asked about yet (a dialog holds it): it leaves the
   * session's pages for its pending tabs, so the tab stays the session's, and comes back as it was once its worker can
   * tell it (see `adoptPending`).
   */
  setAside(session: Session, page: OwnedPage): void {
    if (page.tabId === null) {
      return;
    }
    session.removePage(page.pageId);
    session.pendingTabs.add(page.tabId);
    this.#setAside.set(page.tabId, page);
    session.notes.push(`Note: your page ${page.pageId} (${page.url || 'no url'}) waits on a dialog (its own, or one of a page sharing its renderer); it comes back with a new id once the dialog is closed.`);
  }

  /**
   * The session's pending tabs to close with it (an attached page that was set aside stays open, as attached pages
   * do); the session has no pending tabs afterwards.
   */
  leavePending(session: Session): string[] {
    const tabIds = [...session.pendingTabs].filter((tabId) => this.#setAside.get(tabId)?.origin !== 'attached');
    for (const tabId of session.pendingTabs) {
      this.#setAside.delete(tabId);
    }
    session.pendingTabs.clear();
    return tabIds;
  }

  /** A tab closed: it is nobody's popup-to-be any more. */
  tabClosed(tabId: string): void {
    this.#orphanPopups.delete(tabId);
    this.#toldSilent.delete(tabId);
    this.#setAside.delete(tabId);
    for (const session of this.options.sessions()) {
      session.pendingTabs.delete(tabId);
    }
  }

  /**
   * Turns the session's pending popups that its worker now lists into pages of the session (origin `opened`), with a
   * note for the agent. Popups upstream already reported for a call of the session are pages already. A popup held by
   * a dialog waits (its session is told, once per dialog), as does every popup when the worker got stuck meanwhile.
   */
  async adoptPending(session: Session, worker: Worker): Promise<void> {
    if (session.pendingTabs.size === 0 || !this.options.available()) {
      return;
    }
    await this.#tellDialogs(session);
    const byTab = await unlessTimedOut(this.#listedByTab(worker), new Map<string, ListedPage>());
    for (const tabId of [...session.pendingTabs]) {
      const listed = byTab.get(tabId);
      if (listed === undefined) {
        continue;
      }
      session.pendingTabs.delete(tabId);
      const kept = this.#setAside.get(tabId);
      this.#setAside.delete(tabId);
      const pageId = listed.id;
      if (worker.owners.has(pageId) || session.pages.has(pageId)) {
        continue;
      }
      if (kept) {
        kept.pageId = pageId;
        kept.url = listed.url;
        kept.title = listed.title;
        kept.snapshotEpoch = null;
        kept.snapshotUids = new Set();
        session.pages.set(pageId, kept);
        worker.owners.set(pageId, session.id);
        session.notes.push(`Note: your page ${kept.url || 'no url'} is back, as page ${pageId}; take a new snapshot before using uids.`);
        continue;
      }
      const page = session.addPage(pageId, 'opened', listed.url, listed.title);
      page.tabId = tabId;
      worker.owners.set(pageId, session.id);
      session.notes.push(`Note: page ${pageId} (${page.url || 'no url'}) was opened by one of your pages and is now yours; select_page to use it.`);
    }
  }

  /**
   * Tells a session of dialogs its pending popups show: they cannot become its pages until the dialogs close. A popup
   * that showed its dialog before the daemon's connection could see it is told as one that does not respond.
   */
  async #tellDialogs(session: Session): Promise<void> {
    for (const tab of this.browserTabs()) {
      const dialog = tab.dialog;
      if (dialog === null || !session.pendingTabs.has(tab.tabId) || this.#toldDialogs.has(dialog)) {
        continue;
      }
      this.#toldDialogs.add(dialog);
      session.notes.push(
        `Note: a page one of your pages opened (${tab.url || 'no url'}) shows ${dialogName(dialog)} and waits for an answer; it becomes one of your pages once the dialog is closed. Call handle_dialog to accept or dismiss it.`,
      );
    }
    const untold = (tab: BrowserTab): boolean => !this.#toldSilent.has(tab.tabId);
    for (const tab of await silentPopups(this.#browser, session.pendingTabs, untold)) {
      this.#toldSilent.add(tab.tabId);
      session.notes.push(
        `Note: a page one of your pages opened (${tab.url || 'no url'}) does not respond: a dialog it showed before tabmux could see it (which cannot be answered from here), or a script that never yields, holds it and the pages sharing its renderer. Call handle_dialog to close that page.`,
      );
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

  /**
   * The session owning a page of this worker, whichever worker that session uses. Throws `dialog_open` for a page
   * that may be held by a dialog (its tab, and so its owner, cannot be told until the dialog closes).
   */
  async ownerOf(worker: Worker, pageId: number): Promise<Session | undefined> {
    const local = worker.owners.get(pageId);
    if (local !== undefined) {
      return this.options.sessionById(local);
    }
    if (!this.options.available()) {
      return undefined;
    }
    const found = await unlessTimedOut(this.#lookup(worker, pageId, undefined, this.held()), 'unknown');
    if (found === 'deferred') {
      throw new TabmuxError('dialog_open', `page ${pageId} may be held by a dialog (it or a page related to it shows one), so whose it is cannot be told yet; try again once the dialog is closed`);
    }
    return found === 'unknown' ? undefined : this.sessionOwningTab(found.tabId);
  }

  /** The owner of a page as a list of tabs shows it: none while a dialog may hold the page (attaching it is refused). */
  async shownOwnerOf(worker: Worker, pageId: number): Promise<Session | undefined> {
    try {
      return await this.ownerOf(worker, pageId);
    } catch (error) {
      if (error instanceof TabmuxError && error.code === 'dialog_open') {
        return undefined;
      }
      throw error;
    }
  }

  /**
   * The pages among `pageIds` (this worker's) that no session on any worker owns. Where upstream can tell tabs, a page
   * whose tab is not known (it may be held by a dialog, or upstream did not answer) is left out: it may be someone's.
   */
  async unowned(worker: Worker, pageIds: readonly number[]): Promise<Set<number>> {
    const unowned = new Set<number>();
    const available = this.options.available();
    const upstream = worker.upstream;
    for (const pageId of pageIds) {
      if (worker.upstream !== upstream) {
        // The worker was replaced meanwhile (it got stuck): the rest of `pageIds` name other tabs now.
        break;
      }
      if (worker.owners.has(pageId)) {
        continue;
      }
      if (!available) {
        unowned.add(pageId);
        continue;
      }
      const tabId = await this.tabIdOf(worker, pageId);
      if (tabId !== undefined && !this.sessionOwningTab(tabId)) {
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

/** "an alert dialog", "a confirm dialog", …: the kind only, never the page's message. */
export function dialogName(dialog: TabDialog): string {
  return `${dialog.type === 'alert' ? 'an' : 'a'} ${dialog.type} dialog`;
}
