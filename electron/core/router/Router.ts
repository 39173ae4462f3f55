import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonEvent, HumanActor, HumanRequest, QueueEntry, SessionCloseReason, SessionInfo, TabInfo, WorkerInfo } from '../../../shared/model.js';
import type { SessionPageResult, ToolInfo, ToolResult } from '../../../shared/protocol.js';
import type { UrlPolicy } from '../browser/urlPolicy.js';
import type { Logger } from '../platform/Logger.js';
import type { Upstream } from '../upstream/UpstreamClient.js';
import { AgentTools, type CallOptions } from './AgentTools.js';
import type { CallBeginObserver, CallObserver } from '../activity/CallRecord.js';
import { ChangeFeed } from './ChangeFeed.js';
import { ControlCommands } from './ControlCommands.js';
import { FrontTab } from './FrontTab.js';
import { PageAllocator, type ContextIsolation, type WindowIsolation } from './PageAllocator.js';
import type { RouterSettings } from './RouterSettings.js';
import type { Session } from './Session.js';
import { SessionRegistry } from './SessionRegistry.js';
import { SessionTabs, type TabSource } from './SessionTabs.js';
import { TabIdentity } from './TabIdentity.js';
import { Takeover } from './Takeover.js';
import { ToolCatalog, type AgentToolOptions } from './ToolCatalog.js';
import type { Worker } from './Worker.js';
import { HumanRequests } from './HumanRequests.js';
import { compilePattern, PolicySet } from './PolicySet.js';
import type { PolicyRule } from '../../../shared/policy.js';
import { WorkerPool } from './WorkerPool.js';
import { remapPages, renumber } from './remapPages.js';
import { fillFromJournal, journalMatches, journalOf } from './journaledSessions.js';
import type { JournaledSession } from './SessionJournal.js';
import { disposeContexts, type ContextSource } from './sessionContexts.js';
import { openerChain, sessionDownloads } from './sessionDownloads.js';
import type { DownloadOwner } from '../browser/BrowserDownloads.js';

export { DEFAULT_SETTINGS, type RouterSettings } from './RouterSettings.js';

export interface RouterOptions {
  profile: string;
  settings: RouterSettings;
  logger: Logger;
  startUpstream: (workerIndex: number) => Promise<Upstream>;
  /** Before every call to upstream: the browser is there and prepared (see `ProfileBrowser.ready`). */
  browserReady?: () => Promise<void>;
  /** The profile's folder for files tools read and write (one folder per session inside it). */
  filesDir: string;
  /** What agents may navigate to (the browser layer knows its DevTools port and the folders to protect). */
  urlPolicy?: () => UrlPolicy | undefined;
  /** Told about every agent call once it is answered (the activity log). */
  observe?: CallObserver | undefined;
  /** Told when an observed agent call begins (the calls in flight, for the activity log after a crash). */
  began?: CallBeginObserver | undefined;
  /** The browser is one tabmux did not launch: tabs nobody owns there are the user's, never shown to agents. */
  externalBrowser?: boolean | undefined;
  /** A call's arguments as a person may see them while it waits for approval (the activity log's redaction). */
  redactArgs?: ((tool: string, args: Record<string, unknown>) => Record<string, unknown>) | undefined;
}

/**
 * Sessions on one profile: who owns which page on which upstream worker, how calls are queued, and when idle
 * sessions go. The parts: which sessions exist (`SessionRegistry`), the workers (`WorkerPool`), how pages are opened
 * (`PageAllocator`), which tab is which (`TabIdentity`), agents' tools (`AgentTools`), humans' commands
 * (`ControlCommands`) and the events (`ChangeFeed`). This class wires them and ends sessions.
 */
export class Router {
  readonly settings: RouterSettings;
  readonly #logger: Logger;
  readonly #browserReady: () => Promise<void>;
  readonly #profile: string;
  readonly #filesDir: string;
  readonly #sessions: SessionRegistry;
  readonly #pool: WorkerPool;
  readonly #feed: ChangeFeed;
  readonly #pages: PageAllocator;
  readonly #tabs: TabIdentity;
  readonly #sessionTabs: SessionTabs;
  readonly #agents: AgentTools;
  readonly #control: ControlCommands;
  readonly #takeover = new Takeover();
  readonly #humans: HumanRequests;
  #policies = PolicySet.EMPTY;
  #catalog: ToolCatalog | undefined;
  /** The browser contexts of sessions' isolated contexts, on the current browser connection. */
  #contexts: ContextSource | undefined;
  #reaper: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: RouterOptions) {
    const { settings, logger, profile } = options;
    this.settings = settings;
    this.#logger = logger;
    this.#browserReady = options.browserReady ?? (() => Promise.resolve());
    this.#profile = profile;
    this.#filesDir = options.filesDir;
    const sessions = new SessionRegistry(settings.sessionTtlMs);
    const sessionById = (id: string): Session | undefined => sessions.find(id);
    this.#sessions = sessions;
    const sessionInfo = (id: string): SessionInfo | undefined => {
      const session = sessions.find(id);
      return session && this.#info(session);
    };
    this.#feed = new ChangeFeed({ profile, logger, sessionInfo, queue: () => this.queue() });
    this.#humans = new HumanRequests((id) => this.#feed.sessionChanged(id));
    this.#pool = new WorkerPool({
      size: settings.workers,
      callTimeoutMs: settings.callTimeoutMs,
      workerIdleMs: settings.workerIdleMs,
      logger,
      startUpstream: options.startUpstream,
      ...(options.browserReady ? { browserReady: options.browserReady } : {}),
      isPaused: (id) => sessions.isPaused(id),
      prepare: (worker, upstream) => this.#prepare(worker, upstream),
      onQueueChange: () => this.#feed.queueChanged(),
      onWorkersChange: () => this.#feed.emit({ type: 'workers', profile, workers: this.workers() }),
      endAtBrowser: (call) => this.#endAtBrowser(call.subject ?? call.sessionId),
      startWouldWait: () => this.#tabs.held().any,
    });
    this.#tabs = new TabIdentity({ available: () => this.catalog.upstreamHas('get_tab_id'), sessions: () => sessions.all(), sessionById });
    const tabs = this.#tabs;
    const windows: WindowIsolation = {
      // Finding a tab in a worker takes upstream's tab ids; without them, tabs open as upstream opens them.
      browser: () => (this.catalog.upstreamHas('get_tab_id') ? this.#sessionTabs.source : undefined),
      pageIdOfTab: async (worker, tabId) => (await tabs.pageIdsByTab(worker)).get(tabId),
    };
    const contexts: ContextIsolation = {
      browser: () => {
        const source = windows.browser();
        const made = this.#contexts;
        return source && made ? { tabs: source, contexts: made } : undefined;
      },
      pageIdOfTab: windows.pageIdOfTab,
    };
    this.#pages = new PageAllocator(sessionById, settings.isolation === 'window' ? windows : undefined, contexts);
    this.#sessionTabs = new SessionTabs({ tabs: this.#tabs, pool: this.#pool, pages: this.#pages, logger, changed: (session) => this.#changed(session) });
    const abandoned = async (session: Session, worker: Worker): Promise<void> => {
      await this.#sessionTabs.closeAll(session, worker, true);
      await disposeContexts(session, this.#contexts, logger);
    };
    const parts = { sessions, pool: this.#pool, pages: this.#pages, tabs: this.#tabs, abandoned, front: new FrontTab() };
    this.#agents = new AgentTools({
      ...parts,
      filesDir: options.filesDir,
      isolation: settings.isolation,
      externalBrowser: options.externalBrowser,
      observe: options.observe,
      began: options.began,
      tabUrl: (tabId) => pageTabUrl(this.#sessionTabs.source, tabId),
      urlPolicy: options.urlPolicy ?? (() => undefined),
      catalog: () => this.catalog,
      timeoutFor: (tool) => settings.toolTimeoutsMs[tool] ?? settings.callTimeoutMs,
      changed: (session) => this.#feed.sessionChanged(session.id),
      humans: this.#humans,
      questionTimeoutMs: settings.questionTimeoutMs,
      confirmTimeoutMs: settings.confirmTimeoutMs,
      redact: options.redactArgs,
      policies: () => this.#policies,
    });
    this.#control = new ControlCommands({
      ...parts,
      changed: (id) => this.#feed.sessionChanged(id),
      tabsListed: (tabs) => this.#feed.emit({ type: 'tabs', profile, tabs }),
      windowOf: (tabId) => this.#sessionTabs.source?.windowOf(tabId) ?? Promise.resolve(null),
    });
  }

  /** Starts the first worker and learns upstream's tools; other workers start when sessions need them. */
  async start(): Promise<void> {
    const upstream = await this.#pool.first.ensureStarted();
    this.#catalog = new ToolCatalog(await upstream.listTools());
    this.#reaper = setInterval(() => this.reap(), this.settings.reapIntervalMs);
    this.#reaper.unref();
  }

  get catalog(): ToolCatalog {
    if (!this.#catalog) {
      throw new TabmuxError('upstream_unavailable', 'the router is still starting; try again shortly');
    }
    return this.#catalog;
  }

  /**
   * Calls `listener` synchronously whenever a session changes or ends (`onEvent`'s session events come coalesced a
   * tick later): for what must be up to date before the reply to the change leaves. Costs no event building.
   */
  onSessionChange(listener: () => void): () => void {
    return this.#feed.watchChanges(listener);
  }

  onEvent(listener: (event: DaemonEvent) => void): () => void {
    return this.#feed.subscribe(listener);
  }

  /** Pushes an event that did not come from the router itself (the daemon's state) to subscribers. */
  publish(event: DaemonEvent): void {
    this.#feed.emit(event);
  }

  agentTools(options: AgentToolOptions = {}): ToolInfo[] {
    return this.catalog.agentTools(options);
  }

  // ---- sessions ------------------------------------------------------------------------------------------

  createSession(label?: string | null, id?: string): SessionInfo {
    this.#assertOpen();
    const worker = this.#pool.pin();
    const session = this.#sessions.add(label ?? null, worker.index, id);
    this.#logger.info(`session ${session.id} created${label ? ` (${label})` : ''} on worker ${worker.index}`);
    return this.#changed(session);
  }

  /** What the session journal keeps of every live session (see SessionJournal). */
  journal(): JournaledSession[] {
    return journalOf(this.#sessions.all());
  }

  /** Whether `journal()` would give what `written` holds (see `journalMatches`). */
  journalMatches(written: readonly JournaledSession[]): boolean {
    return journalMatches(this.#sessions.values(), written);
  }

  /**
   * Brings back the sessions a daemon that died had, once this daemon adopted its Chrome: the same ids, labels,
   * pauses and epochs, on the first worker (started by then), with the pages whose tabs still exist found again by
   * Chrome tab id. A session all of whose tabs are gone is not restored. Each one's next result says the daemon
   * restarted and that its uid tokens are stale. Runs before anyone is served. Returns the ids restored.
   */
  async restoreSessions(records: readonly JournaledSession[]): Promise<string[]> {
    if (records.length === 0) {
      return [];
    }
    const worker = this.#pool.first;
    await this.#browserReady();
    const byTab = await this.#tabs.pageIdsByTab(worker);
    const restored: string[] = [];
    for (const record of records) {
      const kept = record.pages.filter((page) => byTab.has(page.tabId));
      if (this.#sessions.find(record.id) || (record.pages.length > 0 && kept.length === 0)) {
        continue;
      }
      worker.sessions++;
      const session = this.#sessions.add(record.label, worker.index, record.id);
      fillFromJournal(session, record);
      renumber(session, worker, byTab, 'the tabmux daemon restarted and recovered on its own; your session was kept');
      this.#logger.info(`session ${session.id} restored with ${session.pages.size} of its ${record.pages.length} page(s)`);
      this.#changed(session);
      restored.push(session.id);
    }
    return restored;
  }

  sessionInfo(id: string): SessionInfo {
    return this.#info(this.#sessions.get(id));
  }

  listSessions(): SessionInfo[] {
    return this.#sessions.all().map((session) => this.#info(session));
  }

  /** How many sessions there are, without building their infos (asked at every session change). */
  get sessionCount(): number {
    return this.#sessions.all().length;
  }

  bind(id: string, connectionId: string): SessionInfo {
    return this.#changed(this.#sessions.bind(id, connectionId));
  }

  unbind(id: string, connectionId: string): void {
    const session = this.#sessions.unbind(id, connectionId);
    if (session) {
      this.#changed(session);
    }
  }

  /** A client went away: drop its queued calls. Running calls finish (upstream cannot take them back). */
  dropOwner(connectionId: string): number {
    return this.#pool.dropOwner(connectionId) + this.#humans.dropOwner(connectionId);
  }

  setPaused(id: string, paused: boolean): SessionInfo {
    const session = this.#sessions.setPaused(id, paused);
    if (!paused) {
      this.#takeover.handedBack(id);
    }
    this.#pool.of(session).queue.kick();
    return this.#changed(session);
  }

  /**
   * Ends a session: its queued calls fail, and the tabs it opened are closed (attached ones are left open), by their
   * Chrome tab ids, so a worker that is down or busy with the session's last call does not keep them open.
   */
  async closeSession(id: string, reason: SessionCloseReason = 'closed'): Promise<{ closed: string; closedPages: number[] }> {
    const session = this.#sessions.remove(id, reason);
    session.ended = true;
    this.#takeover.handedBack(id);
    const ended = new TabmuxError(reason === 'expired' ? 'session_expired' : 'session_closed', `session ${id} was ${reason}`);
    this.#humans.dropSession(id, ended);
    const worker = this.#pool.leave(session, ended);
    if (!this.#closed) {
      await this.#stopTrace(session, worker);
    }
    const closedPages = this.#closed ? [] : await this.#sessionTabs.closeAll(session, worker, false);
    if (!this.#closed) {
      // Its isolated contexts go with it, whatever tabs are left in them: nobody else may ever use their cookies.
      await disposeContexts(session, this.#contexts, this.#logger);
    }
    this.#logger.info(`session ${id} ${reason}; closed pages [${closedPages.join(', ')}]`);
    this.#feed.emit({ type: 'session.closed', profile: this.#profile, sessionId: id, reason });
    this.#feed.queueChanged();
    return { closed: id, closedPages };
  }

  /** Closes sessions idle longer than the TTL that no client holds, that are not paused and have nothing queued. */
  reap(now = Date.now()): string[] {
    const expired = this.#sessions.expired(now, (session) => {
      const counts = this.#pool.of(session).queue.countFor(session.id);
      // A session waiting for a person is in use, however long the person takes.
      return counts.queued + counts.running > 0 || this.#humans.isWaiting(session.id);
    });
    for (const id of expired) {
      void this.closeSession(id, 'expired');
    }
    this.#pool.stopIdle(now);
    return expired;
  }

  // ---- calls and page control ----------------------------------------------------------------------------

  callTool(sessionId: string, name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult> {
    this.#assertOpen();
    return this.#agents.call(sessionId, name, args, options);
  }

  /**
   * The profile's policy rules, for every session from its next call on. A rule whose pattern does not compile (a
   * config edited by hand; tabmux policy add checks them) is left out, and the daemon log says so.
   */
  setPolicies(rules: readonly PolicyRule[]): PolicyRule[] {
    const valid = rules.filter((rule) => {
      try {
        compilePattern(rule.url);
        return true;
      } catch (error) {
        this.#logger.warn(`policy ${rule.id} left out: ${TabmuxError.from(error).message}`);
        return false;
      }
    });
    this.#policies = new PolicySet(valid);
    this.#logger.info(`policies: ${valid.length} rule(s)`);
    this.#feed.emit({ type: 'policies', profile: this.#profile, policies: [...valid] });
    return valid;
  }

  policies(): PolicyRule[] {
    return [...this.#policies.rules];
  }

  /** What waits for a person now, oldest first. */
  requests(): HumanRequest[] {
    return this.#humans.list();
  }

  /** A person's answer to a question; a request that is gone says so. */
  answer(id: string, text: string, by: HumanActor): { answered: string; sessionId: string } {
    const request = this.#humans.answer(id, text, by);
    this.#logger.info(`request ${id} of session ${request.sessionId} answered from the ${by}`);
    return { answered: id, sessionId: request.sessionId };
  }

  /** A person's decision on a call a confirm policy holds; a request that is gone says so. */
  decide(id: string, approved: boolean, reason: string | undefined, by: HumanActor): { decided: string; sessionId: string; approved: boolean } {
    const request = this.#humans.decide(id, approved, reason ?? '', by);
    this.#logger.info(`request ${id} of session ${request.sessionId} ${approved ? 'approved' : 'denied'} from the ${by}`);
    return { decided: id, sessionId: request.sessionId, approved };
  }

  cancel(callId: number): boolean {
    return this.#humans.cancel(callId) || this.#pool.cancel(callId);
  }

  sessionPage(id: string): SessionPageResult {
    return this.#control.page(id);
  }

  /** Gives a tab to a session; `pageId` is in the terms of `fromWorker` (worker 0 by default, as `tabmux pages` shows). */
  attach(id: string, pageId: number, fromWorker = 0): Promise<SessionPageResult> {
    return this.#control.attach(id, pageId, fromWorker);
  }

  newPage(id: string, url: string, background: boolean): Promise<SessionPageResult> {
    return this.#control.newPage(id, url, background);
  }

  release(id: string, pageId?: number): Promise<SessionPageResult> {
    return this.#control.release(id, pageId);
  }

  select(id: string, pageId: number, bringToFront: boolean): Promise<SessionPageResult> {
    return this.#control.select(id, pageId, bringToFront);
  }

  /** Every tab with its owner, and the request its owner waits on a person for. */
  async tabs(): Promise<TabInfo[]> {
    return (await this.#control.tabs()).map((tab) => {
      const waiting = tab.owner === null ? null : this.#humans.waitingOf(tab.owner);
      return waiting ? { ...tab, waitingForHuman: waiting.requestId } : tab;
    });
  }

  openTab(url: string): Promise<TabInfo> {
    return this.#control.openTab(url);
  }

  // ---- status and lifecycle ------------------------------------------------------------------------------

  /**
   * Follows the browser's own view of its tabs (openers, closings) and its contexts; called again for each new browser
   * connection.
   */
  watchTabs(source: TabSource | undefined, contexts?: ContextSource): void {
    this.#sessionTabs.watch(source);
    this.#contexts = source ? contexts : undefined;
  }

  /**
   * Whether a page target is a session's tab, or was opened from one (a popup, whenever it opened): the tabs the
   * guard sends back from a browser page in a browser the user runs. Known from the browser's own tab and opener
   * ids; a tab not known yet counts as the user's.
   */
  isAgentPage(pageTargetId: string): boolean {
    const tab = this.#sessionTabs.source?.list().find((candidate) => candidate.pageTargetId === pageTargetId);
    return tab !== undefined && this.sessionOfTab(tab.tabId) !== undefined;
  }

  /**
   * The session a Chrome tab belongs to: one of its pages, a popup pending for it, or a tab opened from one of its
   * tabs whose popup the router has not taken in yet (the browser's opener ids, whenever it opened). Undefined for a
   * tab of nobody's.
   */
  sessionOfTab(tabId: string): Session | undefined {
    const tabs = this.#sessionTabs.source?.list() ?? [];
    let current: string | null = tabId;
    // Openers are followed a few steps up; a chain of popups longer than that is not worth a walk per event.
    for (let step = 0; current !== null && step < 8; step++) {
      const owner = this.#tabs.sessionOwningTab(current);
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
    const chain = openerChain(this.#sessionTabs.source?.list() ?? [], tabId);
    const owner = (): Session | undefined => chain.map((id) => this.#tabs.sessionOwningTab(id)).find((session) => session !== undefined);
    let session = owner();
    if (!session) {
      const running = this.#pool.queue().filter((entry) => entry.state === 'running');
      await Promise.all(running.map((entry) => this.#pool.at(entry.worker)?.queue.whenFinished(entry.callId, this.settings.callTimeoutMs) ?? Promise.resolve(true)));
      session = owner();
    }
    return session && sessionDownloads(session, this.#filesDir, (changed) => this.#changed(changed), this.#logger);
  }

  /**
   * A person is about to send input to a tab (takeover): refused while the session owning it runs. Returns a
   * function to call once the input was sent, which leaves the session a note and makes its tokens stale.
   */
  takeoverInput(tabId: string): () => void {
    const owner = this.#tabs.sessionOwningTab(tabId) ?? this.#sessions.all().find((session) => session.pendingTabs.has(tabId));
    const session = this.#takeover.check(tabId, owner);
    return () => {
      if (session && !session.ended) {
        this.#takeover.touched(session, this.#sessionTabs.source?.list().find((tab) => tab.tabId === tabId)?.url);
        this.#changed(session);
      }
    };
  }

  queue(): QueueEntry[] {
    return this.#pool.queue();
  }

  workers(): WorkerInfo[] {
    const sessions = this.#sessions.all();
    return this.#pool.infos().map((info) => ({ ...info, sessionIds: sessions.filter((session) => session.worker === info.index).map((session) => session.id) }));
  }

  /**
   * Chrome went away: every tab with it. Running calls fail at once with a clear error, every session is told its
   * pages were lost, and workers restart against the relaunched Chrome on their next call.
   */
  async browserLost(reason: string): Promise<void> {
    for (const session of this.#sessions.all()) {
      // Its isolated contexts went with the browser (or with the connection they were made on).
      session.contexts.clear();
      if (session.pages.size > 0) {
        const lost = session.dropAllPages();
        session.notes.push(`Note: Chrome restarted (${reason}); your page(s) ${lost.join(', ')} were lost. Page-scoped tools open a fresh tab. Take a new snapshot before using uids.`);
        this.#changed(session);
      }
    }
    await this.#pool.browserLost(reason);
  }

  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    clearInterval(this.#reaper);
    this.#humans.close(new TabmuxError('daemon_stopping', 'the daemon stopped before a person answered; ask again once it is back'));
    this.#pool.closeQueues(new TabmuxError('daemon_stopping', 'the daemon is stopping'));
    for (const session of this.#sessions.all()) {
      this.#feed.emit({ type: 'session.closed', profile: this.#profile, sessionId: session.id, reason: 'daemon_stopped' });
    }
    this.#sessions.clear();
    await this.#pool.stop();
  }

  // ---- internals -----------------------------------------------------------------------------------------

  /**
   * A worker started once the router is up (a restart, or an extra worker's first start) finds its sessions' tabs
   * again before it takes calls.
   */
  async #prepare(worker: Worker, upstream: Upstream): Promise<void> {
    if (!this.#catalog) {
      return;
    }
    const sessions = this.#sessions.onWorker(worker.index).filter((session) => session.pages.size > 0);
    if (sessions.length > 0) {
      // Remapping asks upstream for its pages, which reaches the browser.
      await this.#browserReady();
    }
    await remapPages(worker, upstream, sessions, this.#tabs);
    for (const session of sessions) {
      this.#changed(session);
    }
  }

  /**
   * A call of this session was given up on while it ran: the script of its current page is ended through the daemon's own
   * browser connection (a page in a busy loop holds upstream's call, and every later call to that page, forever).
   */
  async #endAtBrowser(sessionId: string): Promise<void> {
    const session = this.#sessions.find(sessionId);
    const source = this.#sessionTabs.source;
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
   * A session that ends while recording a performance trace stops it while its page still exists: a recording whose
   * tab is gone cannot be stopped cleanly, and would spoil the worker's next trace for another session.
   */
  async #stopTrace(session: Session, worker: Worker): Promise<void> {
    const page = session.currentPage;
    if (worker.trace.owner !== session.id || !worker.trace.recording || !page || !worker.upstream) {
      return;
    }
    await this.#pool
      .runSystem(worker, 'performance_stop_trace', () => worker.call('performance_stop_trace', { pageId: page.pageId }))
      .catch((error: unknown) => this.#logger.warn(`stopping the trace of ${session.id} failed: ${TabmuxError.from(error).message}`));
    worker.trace.recording = false;
  }

  /** Marks a session changed for the feed and returns its current state. */
  #changed(session: Session): SessionInfo {
    this.#feed.sessionChanged(session.id);
    return this.#info(session);
  }

  #info(session: Session): SessionInfo {
    const waiting = this.#humans.waitingOf(session.id);
    const info = session.info(this.#pool.of(session).queue.countFor(session.id));
    return waiting ? { ...info, waitingForHuman: waiting } : info;
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new TabmuxError('daemon_stopping', 'the daemon is stopping; start it again with: tabmux daemon start');
    }
  }
}

/**
 * The URL of a tab that holds a page, as the browser reports it, or undefined: what `list()` would give for it,
 * looked up by id where the source can, since every call asks (its page before and after).
 */
function pageTabUrl(source: TabSource | undefined, tabId: string): string | undefined {
  const tab = source?.get ? source.get(tabId) : source?.list().find((candidate) => candidate.tabId === tabId);
  return tab === undefined || tab.pageTargetId === null ? undefined : tab.url;
}
