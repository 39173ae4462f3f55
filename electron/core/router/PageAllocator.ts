import { TabmuxError } from '../../../shared/errors.js';
import type { TabInfo } from '../../../shared/model.js';
import type { ToolResult } from '../../../shared/protocol.js';
import { textOf } from '../../../shared/toolResult.js';
import type { OwnedPage, Session, SessionLookup } from './Session.js';
import type { ContextSource } from './sessionContexts.js';
import type { WindowTabs } from '../browser/WindowTabs.js';
import type { Worker } from './Worker.js';
import { listPages, syncPages } from './pageSync.js';
import { sideCall } from './sideCall.js';
import { isLastPageRefusal, replyOf, type ListedPage } from '../upstream/upstreamReply.js';

/** A page a session asks for. */
export interface PageRequest {
  url: string;
  /** Opens without bringing the tab to the front; sessions get background pages unless they ask otherwise. */
  background: boolean;
  /**
   * The rest of an agent's `new_page` arguments (isolatedContext, timeout), handed to upstream as they are; an
   * agent's own `background` wins over the default, and upstream validates it.
   */
  agentArgs?: Readonly<Record<string, unknown>>;
}

export interface OpenedPage {
  /** Upstream's answer, for the agent (rewritten) or for an error message. */
  result: ToolResult;
  /** The session's new page, now its current one; undefined when opening failed. */
  page: OwnedPage | undefined;
}

/** A window per session: how tabs are opened through the browser and found again in a worker. */
export interface WindowIsolation {
  /** The browser's own connection; without one (it is reconnecting), tabs open as upstream opens them. */
  browser: () => WindowTabs | undefined;
  /** The worker's page id of a Chrome tab, once the worker lists it. */
  pageIdOfTab: (worker: Worker, tabId: string) => Promise<number | undefined>;
}

/**
 * Isolated contexts: browser contexts the daemon makes for a session (never upstream's, whose names are one worker's
 * and outlive sessions), and tabs opened in them through the browser, then found in the worker.
 */
export interface ContextIsolation {
  /** The browser's own connection; undefined while it reconnects (an isolated context cannot be opened then). */
  browser: () => { tabs: WindowTabs; contexts: ContextSource } | undefined;
  /** The worker's page id of a Chrome tab, once the worker lists it. */
  pageIdOfTab: (worker: Worker, tabId: string) => Promise<number | undefined>;
}

/** How often, and how far apart, a worker is asked for a tab the browser just opened before giving up on it. */
const FIND_ATTEMPTS = 100;
const FIND_PAUSE_MS = 50;

interface Created {
  result: ToolResult;
  /** Chrome's tab id of the new tab, when it was opened through the browser. */
  tabId?: string;
  /** Whether upstream opened a tab and listed the pages after it. */
  opened: boolean;
  /** The tab upstream opened: it always selects a new page, even in the background. */
  selected: ListedPage | undefined;
}

/**
 * How tabs are opened and closed for sessions, and for humans. Every new tab goes through one step (`#create`),
 * which cleans up after upstream when opening fails, so how a tab is opened (a window per session, say) is decided
 * here alone. Runs inside a queue slot of the worker, so no other call of this worker runs in between (tabs that other
 * workers open may appear; only the one upstream selected is this call's).
 */
export class PageAllocator {
  constructor(
    private readonly sessionById: SessionLookup,
    private readonly windows?: WindowIsolation,
    private readonly contexts?: ContextIsolation,
  ) {}

  /** The one way a session gets a new page: opens it, gives it to the session and makes it current. */
  async open(session: Session, worker: Worker, request: PageRequest): Promise<OpenedPage> {
    const background = request.agentArgs?.['background'] ?? request.background;
    const { result, selected: created, tabId } = await this.#create(worker, { ...request.agentArgs, url: request.url, background }, session);
    if (!created) {
      return { result, page: undefined };
    }
    const page = session.addPage(created.id, 'created', created.url, created.title);
    page.tabId = tabId ?? null;
    worker.owners.set(created.id, session.id);
    session.select(created.id);
    return { result, page };
  }

  /** The session's current page, opened in the background when it has none. */
  async current(session: Session, worker: Worker): Promise<OwnedPage> {
    const current = session.currentPage;
    if (current) {
      return current;
    }
    const { result, page } = await this.open(session, worker, { url: 'about:blank', background: true });
    if (result.isError || !page) {
      throw new TabmuxError('upstream_failed', `could not open a tab for this session: ${textOf(result)}`);
    }
    return page;
  }

  /** Opens a tab nobody owns, in the foreground, for a human (to log in, say). */
  async openUnowned(worker: Worker, url: string): Promise<TabInfo> {
    const { result, opened, selected } = await this.#create(worker, { url, background: false });
    if (!opened) {
      throw new TabmuxError('upstream_failed', textOf(result));
    }
    if (!selected) {
      throw new TabmuxError('upstream_failed', 'the new tab did not show up in the page list');
    }
    return { pageId: selected.id, worker: worker.index, ownerPageId: null, url: selected.url, title: selected.title, owner: null, origin: null, upstreamSelected: selected.selected, windowId: null };
  }

  /** Closes one of the session's pages; upstream's answer is returned for the agent. */
  async close(session: Session, worker: Worker, pageId: number): Promise<ToolResult> {
    const result = await worker.call('close_page', { pageId });
    if (!result.isError && !isLastPageRefusal(replyOf(result))) {
      session.removePage(pageId);
      worker.owners.delete(pageId);
    }
    return result;
  }

  /**
   * Closes the tabs of a session that ended; each one closed is added to `closed`, so a failure part-way still tells.
   * Each close is a bounded side call: a worker stuck in one is replaced, and the rest (ids of the old process) stop.
   */
  async closeAll(worker: Worker, pageIds: readonly number[], closed: number[]): Promise<void> {
    for (const pageId of pageIds) {
      const result = await sideCall(worker, 'close_page', { pageId });
      const reply = replyOf(result);
      if (!result.isError && !isLastPageRefusal(reply)) {
        closed.push(pageId);
      }
      if (reply.pages) {
        syncPages(worker, reply.pages, this.sessionById);
      }
    }
  }

  /**
   * Opens a tab with upstream's `new_page`. Its reply is produced under its mutex, and upstream always selects the
   * page it opens, so the selected entry of its structured page list is the new tab. A failed navigation leaves the
   * tab open and selected without listing it; that one tab (selected, and new to this worker) is closed here, and
   * nothing else: other sessions' new tabs are theirs.
   */
  async #create(worker: Worker, args: Record<string, unknown>, session?: Session): Promise<Created> {
    if (args['isolatedContext'] !== undefined) {
      return this.#createInContext(worker, session, args);
    }
    const windows = this.windows;
    const browser = windows?.browser();
    if (windows && browser) {
      const nextTo = session ? await this.#windowAnchor(session, browser) : null;
      return this.#createThroughBrowser(worker, browser, args, (background) => browser.openTab({ url: 'about:blank', nextTo, background }), windows.pageIdOfTab);
    }
    const before = new Set((await listPages(worker, this.sessionById)).map((page) => page.id));
    const result = await worker.call('new_page', args);
    const listed = result.isError ? undefined : replyOf(result).pages;
    if (!listed) {
      await this.#closeLeftover(worker, before);
      return { result, opened: false, selected: undefined };
    }
    syncPages(worker, listed, this.sessionById);
    return { result, opened: true, selected: listed.find((page) => page.selected && !before.has(page.id)) };
  }

  /**
   * A tab in one of the session's isolated contexts. The context is the daemon's, made on first use of the name and
   * disposed with the session: the name means something to this session only, on whichever worker it runs, and
   * upstream (whose named contexts are per worker and never closed) never sees it. The tab opens in a window of its
   * context (a context's tabs cannot share a window with the default one's).
   */
  async #createInContext(worker: Worker, session: Session | undefined, args: Record<string, unknown>): Promise<Created> {
    const name = args['isolatedContext'];
    if (typeof name !== 'string' || name === '') {
      throw new TabmuxError('invalid_params', 'isolatedContext must be a non-empty name (pages opened with the same name share cookies and storage)');
    }
    const contexts = this.contexts;
    const browser = contexts?.browser();
    if (!session || !contexts || !browser) {
      throw new TabmuxError('browser_unavailable', "an isolated context needs the daemon's own connection to the browser, which is not there right now; try again shortly");
    }
    let browserContextId = session.contexts.get(name);
    if (browserContextId === undefined) {
      browserContextId = await browser.contexts.create();
      session.contexts.set(name, browserContextId);
    }
    const inContext = browserContextId;
    const rest = { ...args };
    delete rest['isolatedContext'];
    return this.#createThroughBrowser(worker, browser.tabs, rest, (background) => browser.tabs.openTab({ url: 'about:blank', nextTo: null, background, browserContextId: inContext }), contexts.pageIdOfTab);
  }

  /**
   * Opens a tab through the browser (`open`: in the session's window, or in a window of its own, or in an isolated
   * context), finds it in the worker, and navigates it there with upstream's `navigate_page`, whose answer lists the
   * pages as `new_page`'s does. A failed navigation closes the tab again, as a failed `new_page` leaves the session
   * nothing. A human's tab gets a new window too, so it never joins a session's window (the browser's last active one).
   */
  async #createThroughBrowser(
    worker: Worker,
    browser: WindowTabs,
    args: Record<string, unknown>,
    open: (background: boolean) => Promise<string>,
    pageIdOfTab: (worker: Worker, tabId: string) => Promise<number | undefined>,
  ): Promise<Created> {
    const url = typeof args['url'] === 'string' ? args['url'] : 'about:blank';
    const tabId = await open(args['background'] !== false);
    const pageId = await this.#find(worker, tabId, pageIdOfTab).catch(async (error: unknown) => {
      // The worker got stuck looking (it is replaced): the tab would belong to nobody.
      await browser.close(tabId);
      throw error;
    });
    if (pageId === undefined) {
      await browser.close(tabId);
      throw new TabmuxError('upstream_failed', "the session's new tab did not show up in the page list; try again");
    }
    const timeout = args['timeout'];
    const result = url === 'about:blank' ? await worker.call('list_pages', {}) : await worker.call('navigate_page', { pageId, type: 'url', url, ...(timeout === undefined ? {} : { timeout }) });
    const reply = result.isError ? undefined : replyOf(result);
    const listed = reply?.pages;
    if (!listed || reply.message?.startsWith('Unable to navigate') === true) {
      await browser.close(tabId);
      return { result: { ...result, isError: true }, opened: false, selected: undefined };
    }
    syncPages(worker, listed, this.sessionById);
    const selected = listed.find((page) => page.id === pageId);
    return { result, opened: true, selected, tabId };
  }

  /** A tab of the session's window, to open the next tab beside; null when it has none left (a new window then). */
  async #windowAnchor(session: Session, browser: WindowTabs): Promise<string | null> {
    const made = [...session.pages.values()].filter((page) => page.origin !== 'attached' && page.tabId !== null).sort((a, b) => b.lastSelectedAt - a.lastSelectedAt);
    for (const page of made) {
      if (page.tabId !== null && (await browser.windowOf(page.tabId)) !== null) {
        return page.tabId;
      }
    }
    return null;
  }

  /** The worker's page id of a tab just opened: the worker's browser connection may learn of it a moment later. */
  async #find(worker: Worker, tabId: string, pageIdOfTab: (worker: Worker, tabId: string) => Promise<number | undefined>): Promise<number | undefined> {
    for (let attempt = 0; attempt < FIND_ATTEMPTS; attempt++) {
      const pageId = await pageIdOfTab(worker, tabId);
      if (pageId !== undefined) {
        return pageId;
      }
      await new Promise((resolve) => setTimeout(resolve, FIND_PAUSE_MS));
    }
    return undefined;
  }

  async #closeLeftover(worker: Worker, before: ReadonlySet<number>): Promise<void> {
    const leftover = (await listPages(worker, this.sessionById)).find((page) => page.selected && !before.has(page.id) && !worker.owners.has(page.id));
    if (leftover) {
      await sideCall(worker, 'close_page', { pageId: leftover.id });
    }
  }
}
