import { TabmuxError } from '../../../shared/errors.js';
import { closestName } from '../../../shared/closestName.js';
import type { SessionLastCall } from '../../../shared/model.js';
import { outcomeOf } from '../../../shared/outcomeOf.js';
import type { ToolResult } from '../../../shared/protocol.js';
import { textOf, textResult } from '../../../shared/toolResult.js';
import { FRAME_TOOLS, type FrontTab } from './FrontTab.js';
import type { PageAllocator } from './PageAllocator.js';
import type { OwnedPage, Session, SessionLookup } from './Session.js';
import type { SessionRegistry } from './SessionRegistry.js';
import type { TabIdentity } from './TabIdentity.js';
import { SELECTED_PAGE_TOOLS, type ToolCatalog, type ToolKind } from './ToolCatalog.js';
import type { Worker } from './Worker.js';
import type { WorkerPool } from './WorkerPool.js';
import { checkToken } from './checkToken.js';
import { gatePageCall } from './dialogGate.js';
import type { CallBeginObserver, CallObserver } from '../activity/CallRecord.js';
import { CallWatch, type TabUrl } from './CallWatch.js';
import { replyOf } from '../upstream/upstreamReply.js';
import { rewriteResponse, type RewriteContext } from './responseRewriter.js';
import { confineFileArgs, sessionFolder } from './sessionFiles.js';
import type { UrlPolicy } from '../browser/urlPolicy.js';
import { checkTraceCall, noteTraceCall, TRACE_TOOLS } from './traceOwnership.js';
import { translateInputUids } from './uidTokens.js';
import { capOwnWait } from './ownWaitCap.js';
import { movePages } from './remapPages.js';
import { resizeInPage } from './resizeInPage.js';
import { contextName } from './sessionContexts.js';
import { DEFAULT_SETTINGS, type Isolation } from './RouterSettings.js';
import { ASK_HUMAN, answerForLog, askHuman } from './askHuman.js';
import { HumanRequests } from './HumanRequests.js';
import { PolicySet } from './PolicySet.js';
import { PolicyGate } from './PolicyGate.js';
import { snapshotToFile } from './snapshotToFile.js';
import { withNotes } from './withNotes.js';
import { callWatchingPage } from './StuckPageWatch.js';
import { callMindingCrashes, refuseCrashed } from './CrashedPage.js';
import { requirePageId } from './requirePageId.js';
import type { BrowserPulse } from '../browser/BrowserPulse.js';
import { checkAgentUrl } from './checkAgentUrl.js';
import type { Logger } from '../platform/Logger.js';

export interface CallOptions {
  /** Connection id of the caller, so its queued calls go when it vanishes. */
  owner?: string | undefined;
  onQueued?: ((callId: number) => void) | undefined;
}

export interface AgentToolsOptions {
  sessions: SessionRegistry;
  pool: WorkerPool;
  pages: PageAllocator;
  tabs: TabIdentity;
  catalog: () => ToolCatalog;
  timeoutFor: (tool: string) => number;
  changed: (session: Session) => void;
  /** The profile's folder for files tools read and write; each session gets one inside it, of at most `filesMaxBytes` (0: any). */
  filesDir: string;
  filesMaxBytes?: number | undefined;
  /** What agents may navigate to; undefined until the browser is known. */
  urlPolicy: () => UrlPolicy | undefined;
  /** Closes what a closed session still holds; runs inside the worker's queue slot. */
  abandoned: (session: Session, worker: Worker) => Promise<void>;
  /** Which tab is in front, for tools that need a rendered frame; shared by every worker. */
  front: FrontTab;
  /** Told about every call once it is answered (the activity log). */
  observe?: CallObserver | undefined;
  /** Told when an observed call begins; the function it returns is called when the call ends, answered or not. */
  began?: CallBeginObserver | undefined;
  tabUrl?: TabUrl | undefined;
  /** Whether sessions share windows (`tab`, the default) or each has its own: `resize_page` depends on it. */
  isolation?: Isolation | undefined;
  /**
   * The browser is one tabmux did not launch (the user's own, or a remote engine's): a tab no session owns there is
   * not tabmux's to show, so `includeUnowned` lists none.
   */
  externalBrowser?: boolean | undefined;
  /** What waits for a person (`ask_human`), and how long a question may wait (the router's; tests may leave them out). */
  humans?: HumanRequests | undefined;
  questionTimeoutMs?: number | undefined;
  /** The profile's policy rules as they are now (they change without a restart). */
  policies?: (() => PolicySet) | undefined;
  /** How long a call a confirm rule holds waits for a person's approval. */
  confirmTimeoutMs?: number | undefined;
  /** How long a call waits on a page that answers nothing before its script is ended (`StuckPageWatch`); 0: never. */
  stuckPageMs?: number | undefined;
  /** Whether the browser itself answers, asked while calls wait on it (see `BrowserPulse`). */
  pulse?: Pick<BrowserPulse, 'watching'> | undefined;
  logger?: Logger | undefined;
  /** Arguments as a person sees them while a call waits for approval; without it, only their names are shown. */
  redact?: ((tool: string, args: Record<string, unknown>) => Record<string, unknown>) | undefined;
}

/**
 * What each tool means for an agent's session. A call runs as one job in the session's lane of its worker's queue,
 * so its steps (open a page, inject its id, rewrite the answer) see a worker nobody else is using.
 */
export class AgentTools {
  readonly #sessionById: SessionLookup;
  readonly #humans: HumanRequests;
  readonly #policies: PolicyGate;

  constructor(private readonly options: AgentToolsOptions) {
    this.#sessionById = (id) => options.sessions.find(id);
    this.#humans = options.humans ?? new HumanRequests(() => undefined);
    this.#policies = new PolicyGate({ humans: this.#humans, confirmTimeoutMs: options.confirmTimeoutMs, redact: options.redact, tabUrl: options.tabUrl });
  }

  /**
   * Every agent call passes here; each one, whatever became of it, is told to the observer once it is answered, and
   * becomes its session's last call (what a person sees first of what the session did).
   */
  async call(sessionId: string, name: string, args: Record<string, unknown>, callOptions: CallOptions = {}): Promise<ToolResult> {
    const at = Date.now();
    let result: ToolResult;
    try {
      result = await this.#observed(sessionId, name, args, callOptions);
    } catch (error) {
      this.#noteLastCall(sessionId, { tool: name, outcome: outcomeOf(undefined, TabmuxError.from(error)), at, endedAt: Date.now() });
      throw error;
    }
    this.#noteLastCall(sessionId, { tool: name, outcome: outcomeOf(result, undefined), at, endedAt: Date.now() });
    return result;
  }

  #noteLastCall(sessionId: string, lastCall: SessionLastCall): void {
    const session = this.options.sessions.find(sessionId);
    if (session) {
      session.lastCall = lastCall;
      this.options.changed(session);
    }
  }

  async #observed(sessionId: string, name: string, args: Record<string, unknown>, callOptions: CallOptions): Promise<ToolResult> {
    const observe = this.options.observe;
    if (!observe) {
      return this.#call(sessionId, name, args, callOptions, undefined);
    }
    const at = Date.now();
    const session = this.options.sessions.find(sessionId);
    const watch = session ? new CallWatch(session, this.options.tabUrl ?? (() => undefined)) : undefined;
    // The reply waits for the observer (the activity log's write): a caller never sees an answer the log lost.
    const record = async (outcome: { result?: ToolResult; error?: TabmuxError }): Promise<void> => {
      const pages = watch?.after() ?? { pageAfter: null, tabAfter: null, opened: [] };
      const logged = outcome.result && name === ASK_HUMAN ? { ...outcome, result: answerForLog(outcome.result) } : outcome;
      await observe({ sessionId, label: session?.label ?? null, tool: name, args, at, durationMs: Date.now() - at, pageBefore: watch?.before ?? null, ...pages, ...logged });
    };
    const ended = this.options.began?.({ sessionId, label: session?.label ?? null, tool: name, at, pageBefore: watch?.before ?? null });
    let result: ToolResult;
    try {
      result = await this.#call(sessionId, name, args, callOptions, watch);
    } catch (error) {
      await record({ error: TabmuxError.from(error) });
      throw error;
    } finally {
      ended?.();
    }
    await record({ result });
    return result;
  }

  async #call(sessionId: string, name: string, args: Record<string, unknown>, callOptions: CallOptions, watch: CallWatch | undefined): Promise<ToolResult> {
    const { sessions, pool } = this.options;
    const session = sessions.get(sessionId);
    session.lastUsedAt = Date.now();
    if (name === ASK_HUMAN) {
      // Answered by a person, not the browser: it takes no place in the queue, so the session's worker (and every
      // other session) goes on while it waits, and the call timeout does not apply.
      return askHuman(session, args, this.#humans, this.options.questionTimeoutMs ?? DEFAULT_SETTINGS.questionTimeoutMs, callOptions.owner, callOptions.onQueued);
    }
    const catalog = this.options.catalog();
    const kind = catalog.kind(name);
    if (!kind) {
      const meant = closestName(name, [...catalog.names(), ASK_HUMAN]);
      throw new TabmuxError('unknown_tool', `Tool ${name} not found${meant === undefined ? '' : `; did you mean ${meant}?`}`);
    }
    // Before the call takes a place in the queue: a refused call never reaches the browser, and one waiting for a
    // person's approval holds up nobody, not even its own session's other calls.
    const policies = this.options.policies?.() ?? PolicySet.EMPTY;
    const approval = policies.covers(name) ? await this.#policies.check(session, policies, name, args, callOptions) : undefined;
    const worker = await pool.place(session, (moving, to, since) => movePages(moving, pool.of(moving), to, this.options.tabs, since));
    await worker.ensureStarted();
    const timeoutMs = this.options.timeoutFor(name);
    const capped = capOwnWait(name, args, timeoutMs);
    const enqueue = (): Promise<ToolResult> =>
      worker.queue.enqueue({
        sessionId,
        tool: name,
        owner: callOptions.owner,
        onQueued: callOptions.onQueued,
        timeoutMs,
        run: () =>
          worker.whenReady(() => {
            watch?.started();
            return this.#run(sessions.get(sessionId), worker, kind, name, capped.args);
          }),
      });
    const result = await (this.options.pulse?.watching(enqueue) ?? enqueue());
    session.lastUsedAt = Date.now();
    this.options.changed(session);
    const notes = [approval, capped.note].filter((note) => note !== undefined);
    return notes.length === 0 ? result : withNotes({ notes }, result);
  }

  async #run(session: Session, worker: Worker, kind: ToolKind, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    try {
      await this.options.tabs.adoptPending(session, worker);
      const result = await this.#dispatch(session, worker, kind, name, args);
      await this.options.tabs.learn(session, worker);
      return withNotes(session, result);
    } finally {
      if (session.ended) {
        // The session was closed while this call ran: tabs the call opened have nobody to go to.
        await this.options.abandoned(session, worker);
      }
      this.options.changed(session);
    }
  }

  #dispatch(session: Session, worker: Worker, kind: ToolKind, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    checkAgentUrl(this.options.urlPolicy(), () => sessionFolder(this.options.filesDir, session.id), name, args);
    switch (kind) {
      case 'page':
        return this.#pageTool(session, worker, name, args);
      case 'new_page':
        return this.#newPage(session, worker, args);
      case 'list_pages':
        return this.#listPages(session, worker, args['includeUnowned'] === true);
      case 'select_page':
        return this.#selectPage(session, worker, args);
      case 'close_page':
        return this.#closePage(session, worker, args);
      case 'browser':
        return this.#browserTool(session, worker, name, args);
    }
  }

  async #pageTool(session: Session, worker: Worker, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if ('pageId' in args) {
      throw new TabmuxError('invalid_params', `${name} acts on your current page; tabmux sets pageId itself. Remove pageId and use select_page to switch pages`);
    }
    // Tokens are checked before a page is opened, so a bad token never causes side effects.
    const pendingPage = session.currentPage;
    const translated = translateInputUids(args, (token, field) => checkToken(session, pendingPage, token, field, (short) => this.options.sessions.all().some((other) => other.short === short)));
    const confined = await confineFileArgs(name, translated, sessionFolder(this.options.filesDir, session.id), this.options.filesMaxBytes);
    const trace = TRACE_TOOLS.has(name) ? checkTraceCall(worker.trace, session, name, this.#sessionById) : undefined;
    const page = await this.options.pages.current(session, worker);
    const answered = await gatePageCall(this.options.tabs, session, worker, page, name, confined);
    if (answered) {
      return answered;
    }
    refuseCrashed(this.options.tabs.browser, page, name);
    if (trace?.stopOrphan) {
      // The session that started this recording is gone: end it so the worker can record again.
      await worker.call('performance_stop_trace', { pageId: page.pageId });
      worker.trace.recording = false;
    }
    const filePath = confined['filePath'];
    if (name === 'take_snapshot' && typeof filePath === 'string') {
      return this.#watched(session, page, name, () => snapshotToFile(session, worker, page, confined, filePath, (result) => rewriteResponse(result, this.#context(session, worker, page, name))));
    }
    if (name === 'navigate_page' && this.#readsFile(confined['url'])) {
      await this.#tabKnown(session, worker, page);
    }
    if (name === 'resize_page' && this.options.isolation !== 'window') {
      // The viewport is emulated in the page's renderer, which a page that never yields does not let run.
      const resized = await this.#watched(session, page, name, async () => textResult(await resizeInPage(this.options.tabs, worker, page, confined)));
      return withNotes({ notes: [textOf(resized)] }, rewriteResponse(await worker.call('list_pages', {}), this.#context(session, worker, page, name)));
    }
    const call = (): Promise<ToolResult> => worker.call(name, { ...confined, pageId: page.pageId });
    const framed = (): Promise<ToolResult> => (FRAME_TOOLS.has(name) ? this.options.front.run(() => worker.call('select_page', { pageId: page.pageId, bringToFront: true }), call) : call());
    const result = await this.#watched(session, page, name, framed);
    if (trace && !result.isError) {
      noteTraceCall(worker.trace, session, name, confined);
    }
    if (name === 'emulate' && !result.isError) {
      // Each emulate call replaces every setting upstream emulates: a rate left out is no slowdown.
      page.cpuSlowdown = typeof confined['cpuThrottlingRate'] === 'number' ? confined['cpuThrottlingRate'] : 1;
    }
    return rewriteResponse(result, this.#context(session, worker, page, name));
  }

  /** A call on the session's page, watched for a page that stops responding and for one that crashes. */
  #watched(session: Session, page: OwnedPage, name: string, call: () => Promise<ToolResult>): Promise<ToolResult> {
    const browser = this.options.tabs.browser;
    const stuckMs = (this.options.stuckPageMs ?? DEFAULT_SETTINGS.stuckPageMs) * (page.cpuSlowdown ?? 1);
    const logged = (message: string): void => this.options.logger?.warn(`session ${session.id}: ${message}`);
    const reachable = (url: string): boolean => this.options.urlPolicy()?.navigationRefusal(url, { kind: 'session', folder: sessionFolder(this.options.filesDir, session.id) }) === undefined;
    return callWatchingPage(browser, page, name, stuckMs, () => callMindingCrashes(browser, page, name, reachable, call, logged), logged);
  }

  async #newPage(session: Session, worker: Worker, args: Record<string, unknown>): Promise<ToolResult> {
    const url = typeof args['url'] === 'string' ? args['url'] : 'about:blank';
    if (this.#readsFile(url)) {
      return this.#newFilePage(session, worker, url, args);
    }
    const { result } = await this.options.pages.open(session, worker, { url, background: true, agentArgs: args });
    return rewriteResponse(result, this.#context(session, worker, session.currentPage, 'new_page'));
  }

  /**
   * A new page at a `file:` URL opens blank and is navigated once its tab is known to be this session's: the browser
   * lets a tab read files by whose tab it is (see `fileAccess.ts`), and a tab upstream has just opened is nobody's
   * until the router has its Chrome tab id. A navigation that fails closes the page, as a failed `new_page` does.
   */
  async #newFilePage(session: Session, worker: Worker, url: string, args: Record<string, unknown>): Promise<ToolResult> {
    const blank: Record<string, unknown> = { ...args };
    delete blank['url'];
    delete blank['timeout'];
    const { result: opened, page } = await this.options.pages.open(session, worker, { url: 'about:blank', background: true, agentArgs: blank });
    if (!page || opened.isError) {
      return rewriteResponse(opened, this.#context(session, worker, session.currentPage, 'new_page'));
    }
    await this.#tabKnown(session, worker, page);
    const timeout = args['timeout'];
    const result = await worker.call('navigate_page', { pageId: page.pageId, type: 'url', url, ...(timeout === undefined ? {} : { timeout }) });
    if (result.isError || replyOf(result).message?.startsWith('Unable to navigate') === true) {
      await this.options.pages.close(session, worker, page.pageId);
      return rewriteResponse({ ...result, isError: true }, this.#context(session, worker, undefined, 'new_page'));
    }
    return rewriteResponse(result, this.#context(session, worker, page, 'navigate_page'));
  }

  async #listPages(session: Session, worker: Worker, includeUnowned: boolean): Promise<ToolResult> {
    const result = await worker.call('list_pages', {});
    const context = this.#context(session, worker, undefined, 'list_pages');
    if (includeUnowned && this.options.externalBrowser === true) {
      return withNotes({ notes: [UNOWNED_HIDDEN] }, rewriteResponse(result, context));
    }
    if (includeUnowned) {
      const listed = (result.isError ? undefined : replyOf(result).pages) ?? [];
      context.unowned = await this.options.tabs.unowned(worker, listed.map((page) => page.id));
    }
    return rewriteResponse(result, context);
  }

  async #selectPage(session: Session, worker: Worker, args: Record<string, unknown>): Promise<ToolResult> {
    const pageId = requirePageId(args);
    await this.options.tabs.assertOwn(session, worker, pageId);
    if (args['bringToFront'] === true) {
      const result = await worker.call('select_page', { pageId, bringToFront: true });
      if (result.isError) {
        return result;
      }
    }
    session.select(pageId);
    return this.#listPages(session, worker, false);
  }

  async #closePage(session: Session, worker: Worker, args: Record<string, unknown>): Promise<ToolResult> {
    const pageId = requirePageId(args);
    await this.options.tabs.assertOwn(session, worker, pageId);
    const result = await this.options.pages.close(session, worker, pageId);
    return rewriteResponse(result, this.#context(session, worker, undefined, 'close_page'));
  }

  async #browserTool(session: Session, worker: Worker, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (SELECTED_PAGE_TOOLS.has(name)) {
      // These act on upstream's selected page: make it this session's page first, inside the same queue slot.
      const page = await this.options.pages.current(session, worker);
      const selected = await worker.call('select_page', { pageId: page.pageId });
      if (selected.isError) {
        return selected;
      }
    }
    const confined = await confineFileArgs(name, args, sessionFolder(this.options.filesDir, session.id), this.options.filesMaxBytes);
    const result = await worker.call(name, confined);
    return rewriteResponse(result, this.#context(session, worker, session.currentPage, name));
  }

  #readsFile(url: unknown): boolean {
    return typeof url === 'string' && this.options.urlPolicy()?.readsFile(url) === true;
  }

  /**
   * Learns the Chrome tab id of a page that has none yet (one just opened), before it goes to a `file:` URL: the
   * browser lets a tab read its session's files only once the tab is known to be the session's.
   */
  async #tabKnown(session: Session, worker: Worker, page: OwnedPage): Promise<void> {
    if (page.tabId === null) {
      await this.options.tabs.learn(session, worker);
    }
  }

  #context(session: Session, worker: Worker, page: RewriteContext['page'], tool: string): RewriteContext {
    return { session, worker, page, tool, sessionById: this.#sessionById, contextName: (pageId) => this.#contextOf(session, pageId) };
  }

  /** The name of the session's isolated context a page of its is in, from the browser's context id of its tab. */
  #contextOf(session: Session, pageId: number): string | null {
    const tabId = session.pages.get(pageId)?.tabId;
    if (tabId === undefined || tabId === null || session.contexts.size === 0) {
      return null;
    }
    return contextName(session, this.options.tabs.browserTabs().find((tab) => tab.tabId === tabId)?.browserContextId);
  }
}

const UNOWNED_HIDDEN =
  "Note: this browser is one tabmux did not launch, so tabs no session owns are the user's own and are not listed. A person can give you one with tabmux session attach.";
