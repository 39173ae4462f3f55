import { TabmuxError } from '../../../shared/errors.js';
import type { Session, SessionLookup } from './Session.js';
import type { Worker } from './Worker.js';
import { listPages } from './pageSync.js';
import { replyOf } from '../upstream/upstreamReply.js';

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
    const map = new Map<string, number>();
    for (const page of await listPages(worker, this.options.sessionById)) {
      const tabId = await this.tabIdOf(worker, page.id);
      if (tabId !== undefined) {
        map.set(tabId, page.id);
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
      }
    }
  }

  /** The session owning a Chrome tab, on whichever worker. */
  sessionOwningTab(tabId: string): Session | undefined {
    for (const session of this.options.sessions()) {
      for (const page of session.pages.values()) {
        if (page.tabId === tabId) {
          return session;
        }
      }
    }
    return undefined;
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
