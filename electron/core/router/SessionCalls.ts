import { readFile, writeFile } from 'node:fs/promises';
import { TabmuxError } from '../../../shared/errors.js';
import { SYSTEM_LANE_ID, type TabInfo } from '../../../shared/model.js';
import type { SessionPageResult, ToolResult } from '../../../shared/protocol.js';
import type { OwnedPage, Session } from './Session.js';
import { SELECTED_PAGE_TOOLS, type ToolCatalog, type ToolKind } from './ToolCatalog.js';
import type { Worker } from './Worker.js';
import { pagesInResponse, type ListedPage } from './pageListText.js';
import { rewriteResponse, syncPages, type RewriteContext, type SessionLookup } from './responseRewriter.js';
import { textOf } from '../../../shared/toolResult.js';
import { formatToken, parseToken, RAW_UID, rewriteOutputUids, snapshotUids, translateInputUids } from './uidTokens.js';

/** Queue lane for the router's own upstream work (closing pages, listing tabs, attaching). */
export const SYSTEM_LANE = SYSTEM_LANE_ID;

export interface SessionCallsDeps {
  sessionById: SessionLookup;
  /** The session owning a Chrome tab, on whichever worker. */
  tabOwner: (tabId: string) => Session | undefined;
  catalog: () => ToolCatalog;
  changed: (session: Session) => void;
}

/**
 * What each tool means for a session. Runs inside the session's queue slot on its worker, so the steps of one call
 * (open a page, inject its id, rewrite the answer) see a worker nobody else is using.
 */
export class SessionCalls {
  constructor(private readonly deps: SessionCallsDeps) {}

  async run(session: Session, worker: Worker, kind: ToolKind, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    try {
      const result = await this.#dispatch(session, worker, kind, name, args);
      await this.learnTabIds(session, worker);
      return withNotes(session, result);
    } finally {
      this.deps.changed(session);
    }
  }

  /**
   * Learns Chrome's tab id of every page the session owns that lacks one. Tab ids are the same in every upstream
   * process, so they let the router find a session's tabs again after a worker restart renumbers them.
   */
  async learnTabIds(session: Session, worker: Worker): Promise<void> {
    if (!this.deps.catalog().upstreamHas('get_tab_id')) {
      return;
    }
    for (const page of session.pages.values()) {
      if (page.tabId !== null) {
        continue;
      }
      const tabId = await this.#tabIdOf(worker, page.pageId);
      if (tabId !== undefined) {
        page.tabId = tabId;
      }
    }
  }

  async #tabIdOf(worker: Worker, pageId: number): Promise<string | undefined> {
    const cached = worker.tabIds.get(pageId);
    if (cached !== undefined) {
      return cached;
    }
    const result = await worker.call('get_tab_id', { pageId });
    const match = /Tab ID: (\S+)/.exec(textOf(result));
    if (result.isError || !match?.[1]) {
      return undefined;
    }
    worker.tabIds.set(pageId, match[1]);
    return match[1];
  }

  /** Maps every tab the worker lists to its Chrome tab id. */
  async tabIdMap(worker: Worker): Promise<Map<string, number>> {
    const map = new Map<string, number>();
    for (const page of await this.#refreshPages(worker)) {
      const tabId = await this.#tabIdOf(worker, page.id);
      if (tabId !== undefined) {
        map.set(tabId, page.id);
      }
    }
    return map;
  }

  #dispatch(session: Session, worker: Worker, kind: ToolKind, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    {
      switch (kind) {
        case 'page':
          return this.#pageTool(session, worker, name, args);
        case 'new_page':
          return this.#newPageTool(session, worker, args);
        case 'list_pages':
          return this.#listPages(session, worker, args['includeUnowned'] === true);
        case 'select_page':
          return this.#selectPageTool(session, worker, args);
        case 'close_page':
          return this.#closePageTool(session, worker, args);
        case 'browser':
          return this.#browserTool(session, worker, name, args);
      }
    }
  }

  // ---- agent tools ---------------------------------------------------------------------------------------

  async #pageTool(session: Session, worker: Worker, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if ('pageId' in args) {
      throw new TabmuxError('invalid_params', `${name} acts on your current page; tabmux sets pageId itself. Remove pageId and use select_page to switch pages`);
    }
    // Tokens are checked before a page is opened, so a bad token never causes side effects.
    const pendingPage = session.currentPage;
    const translated = translateInputUids(args, (token, field) => this.#rawUid(session, pendingPage, token, field));
    const page = await this.#ensureCurrentPage(session, worker);
    const result = await worker.call(name, { ...translated, pageId: page.pageId });
    const rewritten = rewriteResponse(result, { session, worker, page, tool: name, sessionById: this.deps.sessionById });
    if (name === 'take_snapshot' && !result.isError && typeof args['filePath'] === 'string') {
      await this.#rewriteSnapshotFile(session, page, args['filePath']);
    }
    return rewritten;
  }

  async #newPageTool(session: Session, worker: Worker, args: Record<string, unknown>): Promise<ToolResult> {
    const url = typeof args['url'] === 'string' ? args['url'] : 'about:blank';
    const { result } = await this.#openPage(session, worker, { ...args, url, background: args['background'] ?? true }, 'created');
    return rewriteResponse(result, { session, worker, page: session.currentPage, tool: 'new_page', sessionById: this.deps.sessionById });
  }

  async #listPages(session: Session, worker: Worker, includeUnowned: boolean): Promise<ToolResult> {
    const result = await worker.call('list_pages', {});
    const context: RewriteContext = { session, worker, page: undefined, tool: 'list_pages', sessionById: this.deps.sessionById };
    if (includeUnowned) {
      context.unowned = await this.#unownedPages(worker, pagesInResponse(textOf(result)) ?? []);
    }
    return rewriteResponse(result, context);
  }

  /** Pages no session owns. A tab owned by a session on another worker has another id here; its tab id tells. */
  async #unownedPages(worker: Worker, listed: readonly ListedPage[]): Promise<Set<number>> {
    const unowned = new Set<number>();
    for (const page of listed) {
      if (worker.owners.has(page.id)) {
        continue;
      }
      const tabId = await this.#tabIdOf(worker, page.id);
      if (tabId === undefined || !this.deps.tabOwner(tabId)) {
        unowned.add(page.id);
      }
    }
    return unowned;
  }

  /** The session owning a page of this worker, whichever worker that session uses. */
  async #ownerOf(worker: Worker, pageId: number): Promise<Session | undefined> {
    const local = worker.owners.get(pageId);
    if (local !== undefined) {
      return this.deps.sessionById(local);
    }
    if (!this.deps.catalog().upstreamHas('get_tab_id')) {
      return undefined;
    }
    const tabId = await this.#tabIdOf(worker, pageId);
    return tabId === undefined ? undefined : this.deps.tabOwner(tabId);
  }

  async #selectPageTool(session: Session, worker: Worker, args: Record<string, unknown>): Promise<ToolResult> {
    const pageId = requirePageId(args);
    await this.#assertOwn(session, worker, pageId);
    if (args['bringToFront'] === true) {
      const result = await worker.call('select_page', { pageId, bringToFront: true });
      if (result.isError) {
        return result;
      }
    }
    session.select(pageId);
    return this.#listPages(session, worker, false);
  }

  async #closePageTool(session: Session, worker: Worker, args: Record<string, unknown>): Promise<ToolResult> {
    const pageId = requirePageId(args);
    await this.#assertOwn(session, worker, pageId);
    const result = await worker.call('close_page', { pageId });
    if (!result.isError && !textOf(result).startsWith('The last open page cannot be closed')) {
      session.removePage(pageId);
      worker.owners.delete(pageId);
    }
    return rewriteResponse(result, { session, worker, page: undefined, tool: 'close_page', sessionById: this.deps.sessionById });
  }

  async #browserTool(session: Session, worker: Worker, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (SELECTED_PAGE_TOOLS.has(name)) {
      // These act on upstream's selected page: make it this session's page first, inside the same queue slot.
      const page = await this.#ensureCurrentPage(session, worker);
      const selected = await worker.call('select_page', { pageId: page.pageId });
      if (selected.isError) {
        return selected;
      }
    }
    const result = await worker.call(name, args);
    return rewriteResponse(result, { session, worker, page: session.currentPage, tool: name, sessionById: this.deps.sessionById });
  }

  // ---- control commands ----------------------------------------------------------------------------------

  async attach(session: Session, worker: Worker, pageId: number): Promise<SessionPageResult> {
    const listed = await this.#refreshPages(worker);
    const tab = listed.find((page) => page.id === pageId);
    if (!tab) {
      throw new TabmuxError('unknown_page', `no tab with page id ${pageId}; list tabs with: tabmux pages`);
    }
    const owner = await this.#ownerOf(worker, pageId);
    if (owner !== undefined && owner !== session) {
      throw new TabmuxError('page_conflict', `page ${pageId} belongs to session ${owner.id}; release it there first (tabmux session release --session ${owner.id})`);
    }
    if (owner === undefined) {
      session.addPage(pageId, 'attached', tab.url, tab.title);
      worker.owners.set(pageId, session.id);
    }
    session.select(pageId);
    await this.learnTabIds(session, worker);
    return pageResult(session);
  }

  async newPage(session: Session, worker: Worker, url: string, background: boolean): Promise<SessionPageResult> {
    const { result } = await this.#openPage(session, worker, { url, background }, 'created');
    if (result.isError) {
      throw new TabmuxError('upstream_failed', textOf(result));
    }
    await this.learnTabIds(session, worker);
    return pageResult(session);
  }

  release(session: Session, worker: Worker, pageId: number | undefined): SessionPageResult {
    const target = pageId ?? session.currentPageId;
    if (target === null || !session.pages.has(target)) {
      throw new TabmuxError('unknown_page', target === null ? `session ${session.id} has no page to release` : `page ${target} does not belong to session ${session.id}`);
    }
    session.removePage(target);
    worker.owners.delete(target);
    return pageResult(session);
  }

  async select(session: Session, worker: Worker, pageId: number, bringToFront: boolean): Promise<SessionPageResult> {
    await this.#assertOwn(session, worker, pageId);
    if (bringToFront) {
      const result = await worker.call('select_page', { pageId, bringToFront: true });
      if (result.isError) {
        throw new TabmuxError('upstream_failed', textOf(result));
      }
    }
    session.select(pageId);
    return pageResult(session);
  }

  async tabs(worker: Worker): Promise<TabInfo[]> {
    const listed = await this.#refreshPages(worker);
    const tabs: TabInfo[] = [];
    for (const page of listed) {
      const owner = await this.#ownerOf(worker, page.id);
      const tabId = worker.tabIds.get(page.id);
      const owned = owner ? [...owner.pages.values()].find((candidate) => (owner.worker === worker.index ? candidate.pageId === page.id : candidate.tabId === tabId)) : undefined;
      // An owned tab is shown with the id its owner uses (on its own worker), so `release --page` takes what `pages` shows.
      tabs.push({
        pageId: owned && owner ? owned.pageId : page.id,
        worker: owner?.worker ?? worker.index,
        url: page.url,
        title: page.title,
        owner: owner?.id ?? null,
        origin: owned?.origin ?? null,
        upstreamSelected: page.selected,
      });
    }
    return tabs;
  }

  /** Chrome tab id of a page of this worker (learned on first use). */
  tabIdOf(worker: Worker, pageId: number): Promise<string | undefined> {
    return this.#tabIdOf(worker, pageId);
  }

  async openTab(worker: Worker, url: string): Promise<TabInfo> {
    const before = new Set((await this.#refreshPages(worker)).map((page) => page.id));
    const result = await worker.call('new_page', { url, background: false });
    const listed = pagesInResponse(textOf(result));
    if (result.isError || !listed) {
      await this.#closeOrphans(worker, before);
      throw new TabmuxError('upstream_failed', textOf(result));
    }
    syncPages(worker, listed, this.deps.sessionById);
    const page = listed.find((candidate) => candidate.selected && !before.has(candidate.id));
    if (!page) {
      throw new TabmuxError('upstream_failed', 'the new tab did not show up in the page list');
    }
    return { pageId: page.id, worker: worker.index, url: page.url, title: page.title, owner: null, origin: null, upstreamSelected: true };
  }

  // ---- helpers -------------------------------------------------------------------------------------------

  async #ensureCurrentPage(session: Session, worker: Worker): Promise<OwnedPage> {
    const current = session.currentPage;
    if (current) {
      return current;
    }
    const { result } = await this.#openPage(session, worker, { url: 'about:blank', background: true }, 'created');
    const page = session.currentPage;
    if (result.isError || !page) {
      throw new TabmuxError('upstream_failed', `could not open a tab for this session: ${textOf(result)}`);
    }
    return page;
  }

  /**
   * Opens a tab for the session. Upstream always selects a new page, even in the background, and its reply is
   * produced under its mutex, so the `[selected]` entry is ours. A failed navigation leaves an orphan tab behind;
   * it is closed here.
   */
  async #openPage(session: Session, worker: Worker, args: Record<string, unknown>, origin: 'created'): Promise<{ result: ToolResult }> {
    const before = new Set((await this.#refreshPages(worker)).map((page) => page.id));
    const result = await worker.call('new_page', args);
    const listed = pagesInResponse(textOf(result));
    if (result.isError || !listed) {
      await this.#closeOrphans(worker, before);
      return { result };
    }
    const created = listed.find((page) => page.selected && !before.has(page.id)) ?? listed.find((page) => !before.has(page.id));
    if (created) {
      session.addPage(created.id, origin, created.url, created.title);
      worker.owners.set(created.id, session.id);
      session.select(created.id);
    }
    syncPages(worker, listed, this.deps.sessionById);
    return { result };
  }

  async #closeOrphans(worker: Worker, before: ReadonlySet<number>): Promise<void> {
    const after = await this.#refreshPages(worker);
    for (const page of after) {
      if (!before.has(page.id) && !worker.owners.has(page.id)) {
        await worker.call('close_page', { pageId: page.id });
      }
    }
  }

  async #refreshPages(worker: Worker): Promise<ListedPage[]> {
    const result = await worker.call('list_pages', {});
    const listed = pagesInResponse(textOf(result));
    if (result.isError || !listed) {
      throw new TabmuxError('upstream_failed', `could not list pages: ${textOf(result)}`);
    }
    syncPages(worker, listed, this.deps.sessionById);
    return listed;
  }

  async #assertOwn(session: Session, worker: Worker, pageId: number): Promise<void> {
    if (session.pages.has(pageId)) {
      return;
    }
    if (worker.owners.has(pageId) || (await this.#ownerOf(worker, pageId).catch(() => undefined))) {
      throw new TabmuxError('page_conflict', `page ${pageId} belongs to another session; call list_pages to see your own pages`);
    }
    throw new TabmuxError('unknown_page', `page ${pageId} is not one of your pages; call list_pages to see them (a human can attach a tab to you with tabmux session attach)`);
  }

  /** Translates a session token back to upstream's raw uid, refusing anything that is not from this session's latest snapshot of its current page. */
  #rawUid(session: Session, current: OwnedPage | undefined, token: string, field: string): string {
    const parsed = parseToken(token);
    if (!parsed) {
      const hint = RAW_UID.test(token) ? ' It looks like a raw upstream uid;' : '';
      throw new TabmuxError('bad_token', `${field}: ${JSON.stringify(token)} is not a uid token.${hint} use the u:… uids from your latest take_snapshot`);
    }
    if (parsed.short !== session.short) {
      throw new TabmuxError('foreign_token', `${field}: uid token ${token} belongs to another session; call take_snapshot in this session and use its uids`);
    }
    const page = session.pageForEpoch(parsed.epoch);
    if (!page) {
      throw new TabmuxError('stale_token', `${field}: uid token ${token} is from an older snapshot or the page has navigated since; call take_snapshot again and use the new uids`);
    }
    if (page !== current) {
      throw new TabmuxError('stale_token', `${field}: uid token ${token} belongs to page ${page.pageId}, not your current page ${String(current?.pageId ?? 'none')}; select_page ${page.pageId} first or take_snapshot here`);
    }
    if (!page.snapshotUids.has(parsed.raw)) {
      throw new TabmuxError('bad_token', `${field}: uid token ${token} is not in your latest snapshot; call take_snapshot again`);
    }
    return parsed.raw;
  }

  /** A snapshot saved to a file gets a new epoch and session tokens, like one returned inline. */
  async #rewriteSnapshotFile(session: Session, page: OwnedPage, filePath: string): Promise<void> {
    let text: string;
    try {
      text = await readFile(filePath, 'utf8');
    } catch {
      return;
    }
    const epoch = session.newEpoch(page, snapshotUids(text));
    await writeFile(filePath, rewriteOutputUids(text, (raw) => formatToken(session.short, epoch, raw)));
  }
}

/** Puts the session's pending notes in front of the result text, once. */
function withNotes(session: Session, result: ToolResult): ToolResult {
  if (session.notes.length === 0) {
    return result;
  }
  const notes = session.notes.join('\n');
  session.notes = [];
  const [first, ...rest] = result.content;
  if (first?.type === 'text' && typeof first.text === 'string') {
    return { ...result, content: [{ ...first, text: `${notes}\n${first.text}` }, ...rest] };
  }
  return { ...result, content: [{ type: 'text', text: notes }, ...result.content] };
}

function requirePageId(args: Record<string, unknown>): number {
  const pageId = args['pageId'];
  if (typeof pageId !== 'number' || !Number.isInteger(pageId)) {
    throw new TabmuxError('invalid_params', 'pageId must be the number of one of your pages, as list_pages shows it');
  }
  return pageId;
}

function pageResult(session: Session): SessionPageResult {
  const current = session.currentPage;
  return {
    session: session.id,
    pageId: current?.pageId ?? null,
    url: current?.url ?? null,
    pages: session.info({ queued: 0, running: 0 }).pages,
  };
}

