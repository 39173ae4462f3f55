import { TabmuxError } from '../../../shared/errors.js';
import type { TabInfo } from '../../../shared/model.js';
import type { SessionPageResult } from '../../../shared/protocol.js';
import { textOf } from '../../../shared/toolResult.js';
import type { PageAllocator } from './PageAllocator.js';
import type { Session, SessionLookup } from './Session.js';
import type { SessionRegistry } from './SessionRegistry.js';
import type { TabIdentity } from './TabIdentity.js';
import type { Worker } from './Worker.js';
import type { WorkerPool } from './WorkerPool.js';
import { listPages } from './pageSync.js';
import { shownUrl } from '../../../shared/shownUrl.js';

export interface ControlCommandsOptions {
  sessions: SessionRegistry;
  pool: WorkerPool;
  pages: PageAllocator;
  tabs: TabIdentity;
  changed: (sessionId: string) => void;
  tabsListed: (tabs: TabInfo[]) => void;
  /** The browser window holding a Chrome tab, from the browser itself; null when it cannot tell. */
  windowOf: (tabId: string) => Promise<number | null>;
  /** Closes what a closed session still holds; runs inside the worker's queue slot. */
  abandoned: (session: Session, worker: Worker) => Promise<void>;
}

/**
 * What a human (the UI, `tabmux session …`, scripts) does to sessions' pages: give a tab to a session, take it back,
 * switch or open its page, list and open tabs. Each command runs as the router's own job in the session's worker.
 */
export class ControlCommands {
  readonly #sessionById: SessionLookup;

  constructor(private readonly options: ControlCommandsOptions) {
    this.#sessionById = (id) => options.sessions.find(id);
  }

  /** The session's current page and all its pages. */
  page(id: string): SessionPageResult {
    return pageResult(this.options.sessions.get(id));
  }

  /**
   * Gives a tab to a session. `pageId` is in the terms of `fromWorker` (by default worker 0, whose ids `tabmux pages`
   * shows); when the session lives on another worker the tab is found there by its Chrome tab id.
   */
  async attach(id: string, pageId: number, fromWorker = 0): Promise<SessionPageResult> {
    const { sessions, pool, tabs } = this.options;
    const session = sessions.get(id);
    let targetId = pageId;
    if (session.worker !== fromWorker) {
      const source = pool.at(fromWorker);
      if (!source) {
        throw new TabmuxError('unknown_page', `there is no worker ${fromWorker}`);
      }
      const tabId = await pool.runSystem(source, 'get_tab_id', () => tabs.tabIdOf(source, pageId), id);
      if (tabId === undefined) {
        throw new TabmuxError('unknown_page', `no tab with page id ${pageId}; list tabs with: tabmux pages`);
      }
      targetId = await this.#system(id, 'attach', async (_session, worker) => {
        const found = (await tabs.pageIdsByTab(worker)).get(tabId);
        if (found === undefined) {
          throw new TabmuxError('unknown_page', `tab ${pageId} is gone; list tabs with: tabmux pages`);
        }
        return found;
      });
    }
    return this.#system(id, 'attach', (current, worker) => this.#attach(current, worker, targetId));
  }

  newPage(id: string, url: string, background: boolean): Promise<SessionPageResult> {
    return this.#system(id, 'new_page', async (session, worker) => {
      const { result } = await this.options.pages.open(session, worker, { url, background });
      if (result.isError) {
        throw new TabmuxError('upstream_failed', textOf(result));
      }
      await this.options.tabs.learn(session, worker);
      return pageResult(session);
    });
  }

  /** Takes a page (by default the current one) from a session without closing it. */
  release(id: string, pageId?: number): Promise<SessionPageResult> {
    return this.#system(id, 'release', (session, worker) => Promise.resolve().then(() => release(session, worker, pageId)));
  }

  select(id: string, pageId: number, bringToFront: boolean): Promise<SessionPageResult> {
    return this.#system(id, 'select_page', async (session, worker) => {
      await this.options.tabs.assertOwn(session, worker, pageId);
      if (bringToFront) {
        const result = await worker.call('select_page', { pageId, bringToFront: true });
        if (result.isError) {
          throw new TabmuxError('upstream_failed', textOf(result));
        }
      }
      session.select(pageId);
      return pageResult(session);
    });
  }

  /** Every tab of the profile with its owner, as the first worker sees them. */
  async tabs(): Promise<TabInfo[]> {
    const worker = this.options.pool.first;
    const tabs = await this.options.pool.runSystem(worker, 'list_pages', () => this.#listTabs(worker));
    this.options.tabsListed(tabs);
    return tabs;
  }

  /** Opens an unowned tab in the foreground, for a human (to log in, say). */
  openTab(url: string): Promise<TabInfo> {
    const worker = this.options.pool.first;
    return this.options.pool.runSystem(worker, 'new_page', async () => {
      const tab = await this.options.pages.openUnowned(worker, url);
      const tabId = await this.options.tabs.tabIdOf(worker, tab.pageId);
      return { ...tab, windowId: tabId === undefined ? null : await this.options.windowOf(tabId), ...(tabId === undefined ? {} : { tabId }) };
    });
  }

  async #system<T>(id: string, tool: string, run: (session: Session, worker: Worker) => Promise<T>): Promise<T> {
    const { sessions, pool } = this.options;
    const worker = pool.of(sessions.get(id));
    const result = await pool.runSystem(
      worker,
      tool,
      async () => {
        const session = sessions.get(id);
        try {
          return await run(session, worker);
        } finally {
          if (session.ended) {
            await this.options.abandoned(session, worker);
          }
        }
      },
      id,
    );
    this.options.changed(id);
    return result;
  }

  async #attach(session: Session, worker: Worker, pageId: number): Promise<SessionPageResult> {
    const tab = (await listPages(worker, this.#sessionById)).find((page) => page.id === pageId);
    if (!tab) {
      throw new TabmuxError('unknown_page', `no tab with page id ${pageId}; list tabs with: tabmux pages`);
    }
    const owner = await this.options.tabs.ownerOf(worker, pageId);
    if (owner !== undefined && owner !== session) {
      throw new TabmuxError('page_conflict', `page ${pageId} belongs to session ${owner.id}; release it there first (tabmux session release --session ${owner.id})`);
    }
    if (owner === undefined) {
      session.addPage(pageId, 'attached', tab.url, tab.title);
      worker.owners.set(pageId, session.id);
    }
    session.select(pageId);
    await this.options.tabs.learn(session, worker);
    return pageResult(session);
  }

  async #listTabs(worker: Worker): Promise<TabInfo[]> {
    const tabs: TabInfo[] = [];
    for (const page of await listPages(worker, this.#sessionById)) {
      const owner = await this.options.tabs.shownOwnerOf(worker, page.id);
      const tabId = await this.options.tabs.tabIdOf(worker, page.id);
      const crash = tabId === undefined ? undefined : this.options.tabs.browser?.get?.(tabId)?.crashed;
      const owned = owner ? [...owner.pages.values()].find((candidate) => (owner.worker === worker.index ? candidate.pageId === page.id : candidate.tabId === tabId)) : undefined;
      // Every tab is listed with the first worker's id, so no two tabs share a number and attach takes what is shown;
      // the id the owner uses on its own worker comes along.
      tabs.push({
        pageId: page.id,
        worker: worker.index,
        ownerPageId: owned?.pageId ?? null,
        ownerWorker: owner?.worker ?? null,
        url: shownUrl(page.url),
        title: shownUrl(page.title),
        owner: owner?.id ?? null,
        origin: owned?.origin ?? null,
        upstreamSelected: page.selected,
        windowId: tabId === undefined ? null : await this.options.windowOf(tabId),
        ...(tabId === undefined ? {} : { tabId }),
        ...(crash ? { crashed: crash.status } : {}),
      });
    }
    return tabs;
  }
}

function release(session: Session, worker: Worker, pageId: number | undefined): SessionPageResult {
  const target = pageId ?? session.currentPageId;
  if (target === null || !session.pages.has(target)) {
    throw new TabmuxError('unknown_page', target === null ? `session ${session.id} has no page to release` : `page ${target} does not belong to session ${session.id}`);
  }
  session.removePage(target);
  worker.owners.delete(target);
  return pageResult(session);
}

function pageResult(session: Session): SessionPageResult {
  const current = session.currentPage;
  return {
    session: session.id,
    pageId: current?.pageId ?? null,
    url: current ? shownUrl(current.url) : null,
    pages: session.info({ queued: 0, running: 0 }).pages,
  };
}
