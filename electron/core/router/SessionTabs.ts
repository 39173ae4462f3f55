import { TabmuxError } from '../../../shared/errors.js';
import type { BrowserTab } from '../browser/BrowserTab.js';
import type { Logger } from '../platform/Logger.js';
import type { PageAllocator } from './PageAllocator.js';
import type { Session } from './Session.js';
import type { TabIdentity } from './TabIdentity.js';
import type { TabEvent, TabView } from './TabView.js';
import type { Worker } from './Worker.js';
import type { WindowTabs } from '../browser/WindowTabs.js';
import type { WorkerPool } from './WorkerPool.js';

/** What the router needs of the browser's own view of its tabs: `BrowserTabs`, on the daemon's CDP connection. */
export interface TabSource extends WindowTabs, TabView {
  on(event: TabEvent, listener: (tab: BrowserTab) => void): unknown;
  off(event: TabEvent, listener: (tab: BrowserTab) => void): unknown;
  openBlank(): Promise<string>;
  close(tabId: string): Promise<boolean>;
}

export interface SessionTabsOptions {
  tabs: TabIdentity;
  pool: WorkerPool;
  pages: PageAllocator;
  logger: Logger;
  changed: (session: Session) => void;
}

/**
 * Sessions' tabs as the browser reports them: a popup belongs to its opener's session whenever it opens, a tab closed
 * by anyone leaves its session at once, and a closed session's tabs are closed by their Chrome tab ids, whatever state
 * its worker is in. Without a browser connection (unit tests over a fake upstream), tabs are closed through the worker.
 */
export class SessionTabs {
  #source: TabSource | undefined;
  readonly #onOpened = (tab: BrowserTab): void => this.#opened(tab);
  readonly #onClosed = (tab: BrowserTab): void => this.#closed(tab);
  readonly #onCrashed = (tab: BrowserTab): void => this.#crashed(tab);

  constructor(private readonly options: SessionTabsOptions) {}

  /** The browser connection followed now, if any. */
  get source(): TabSource | undefined {
    return this.#source;
  }

  /** Follows a browser connection's tabs (a relaunched browser gives a new one). */
  watch(source: TabSource | undefined): void {
    this.#source?.off('opened', this.#onOpened);
    this.#source?.off('closed', this.#onClosed);
    this.#source?.off('crashed', this.#onCrashed);
    this.#source = source;
    this.options.tabs.follow(source);
    source?.on('opened', this.#onOpened);
    source?.on('closed', this.#onClosed);
    source?.on('crashed', this.#onCrashed);
  }

  /**
   * Closes the tabs a session opened (attached tabs stay open) and its popups not yet seen by its worker; returns
   * the page ids closed. `inSlot` says the caller holds the worker's queue slot (a call that ran on after its session
   * was closed), so the worker may be asked directly.
   */
  async closeAll(session: Session, worker: Worker, inSlot: boolean): Promise<number[]> {
    const owned = [...session.pages.values()].filter((page) => page.origin !== 'attached');
    const closed: number[] = [];
    const source = this.#source;
    const byTab = source ? owned.filter((page) => page.tabId !== null) : [];
    const viaWorker = owned.filter((page) => !byTab.includes(page)).map((page) => page.pageId);
    const tabIds = [...byTab.map((page) => page.tabId ?? ''), ...this.options.tabs.leavePending(session)];
    if (source && tabIds.length > 0) {
      if (source.list().every((tab) => tabIds.includes(tab.tabId))) {
        // Closing every tab would close the browser's last window (and with it a headed browser).
        await source.openBlank().catch(() => undefined);
      }
      for (const page of byTab) {
        if (await source.close(page.tabId ?? '')) {
          closed.push(page.pageId);
        }
      }
      for (const tabId of tabIds.slice(byTab.length)) {
        await source.close(tabId);
      }
    }
    if (viaWorker.length > 0) {
      await this.#closeThroughWorker(session, worker, viaWorker, closed, inSlot);
    }
    for (const pageId of closed) {
      session.removePage(pageId);
      if (worker.owners.get(pageId) === session.id) {
        worker.owners.delete(pageId);
      }
    }
    return closed;
  }

  async #closeThroughWorker(session: Session, worker: Worker, pageIds: number[], closed: number[], inSlot: boolean): Promise<void> {
    const close = (): Promise<void> => this.options.pages.closeAll(worker, pageIds, closed);
    if (inSlot) {
      await close();
    } else if (worker.upstream) {
      await this.options.pool
        .runSystem(worker, 'close_page', close)
        .catch((error: unknown) => this.options.logger.warn(`closing pages of ${session.id} failed: ${TabmuxError.from(error).message}`));
    } else {
      this.options.logger.warn(`session ${session.id}: pages [${pageIds.join(', ')}] have no known tab id and worker ${worker.index} is down; they stay open`);
    }
  }

  #opened(tab: BrowserTab): void {
    if (tab.openerTabId === null) {
      return;
    }
    const owner = this.options.tabs.popupOpened(tab.tabId, tab.openerTabId);
    if (owner) {
      this.options.logger.info(`tab ${tab.tabId} opened by a page of session ${owner.id} is now that session's`);
      this.options.changed(owner);
    }
  }

  /** A session's page crashed or runs again: logged, and told as a change of the session (the dashboard lists its tabs again). */
  #crashed(tab: BrowserTab): void {
    const found = this.options.tabs.pageOfTab(tab.tabId);
    if (!found?.page) {
      return;
    }
    const { session, page } = found;
    const named = `session ${session.id}: page ${page.pageId} (${tab.url || 'no url'})`;
    if (tab.crashed) {
      this.options.logger.warn(`${named} crashed (${tab.crashed.status}, code ${tab.crashed.errorCode})`);
    } else {
      this.options.logger.info(`${named} runs again after its crash`);
    }
    this.options.changed(session);
  }

  #closed(tab: BrowserTab): void {
    const found = this.options.tabs.pageOfTab(tab.tabId);
    this.options.tabs.tabClosed(tab.tabId);
    if (!found?.page) {
      return;
    }
    const { session, page } = found;
    const worker = this.options.pool.of(session);
    const running = worker.queue.countFor(session.id).running > 0;
    session.removePage(page.pageId);
    if (worker.owners.get(page.pageId) === session.id) {
      worker.owners.delete(page.pageId);
    }
    if (!running) {
      // A call of the session may be closing it right now; otherwise someone else did.
      session.notes.push(`Note: your page ${page.pageId} (${page.url || 'no url'}) was closed outside this session and is no longer yours.`);
    }
    this.options.changed(session);
  }
}
