import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonEvent, HumanActor, HumanRequest, QueueEntry, SessionCloseReason, SessionInfo, TabInfo, WorkerInfo } from '../../../shared/model.js';
import type { SessionPageResult, ToolInfo, ToolResult } from '../../../shared/protocol.js';
import type { Logger } from '../platform/Logger.js';
import { AgentTools, type CallOptions } from './AgentTools.js';
import { ChangeFeed } from './ChangeFeed.js';
import { ControlCommands } from './ControlCommands.js';
import { FrontTab } from './FrontTab.js';
import { BrowserIsolation } from './BrowserIsolation.js';
import { PageAllocator } from './PageAllocator.js';
import type { RouterOptions } from './RouterOptions.js';
import type { RouterSettings } from './RouterSettings.js';
import type { Session } from './Session.js';
import { SessionLifecycle } from './SessionLifecycle.js';
import { SessionRegistry } from './SessionRegistry.js';
import { SessionTabs, type TabSource } from './SessionTabs.js';
import { TabIdentity } from './TabIdentity.js';
import { TabOwnership } from './TabOwnership.js';
import { Takeover } from './Takeover.js';
import { ToolCatalog, type AgentToolOptions } from './ToolCatalog.js';
import type { Worker } from './Worker.js';
import { HumanRequests } from './HumanRequests.js';
import { ProfilePolicies } from './ProfilePolicies.js';
import type { PolicyRule } from '../../../shared/policy.js';
import { WorkerPool } from './WorkerPool.js';
import { journalMatches, journalOf } from './journaledSessions.js';
import { startWouldWait } from './heldTabs.js';
import { movePages } from './remapPages.js';
import { routerPulse } from './browserSilence.js';
import type { BrowserPulse } from '../browser/BrowserPulse.js';
import type { JournaledSession } from './SessionJournal.js';
import { disposeContexts, type ContextSource } from './sessionContexts.js';
import type { DownloadOwner } from '../browser/BrowserDownloads.js';

export { DEFAULT_SETTINGS, type RouterSettings } from './RouterSettings.js';
export type { RouterOptions } from './RouterOptions.js';

/**
 * Sessions on one profile: who owns which page on which upstream worker, how calls are queued, and when idle
 * sessions go. The parts: which sessions exist (`SessionRegistry`), the workers (`WorkerPool`), how pages are opened
 * (`PageAllocator`), which tab is which (`TabIdentity`), agents' tools (`AgentTools`), humans' commands
 * (`ControlCommands`), how sessions begin and end (`SessionLifecycle`), whose a Chrome tab is (`TabOwnership`) and
 * the events (`ChangeFeed`). This class wires them, and is what the rest of the daemon talks to.
 */
export class Router {
  readonly settings: RouterSettings;
  readonly #logger: Logger;
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
  readonly #lifecycle: SessionLifecycle;
  readonly #owners: TabOwnership;
  readonly #policies: ProfilePolicies;
  readonly #isolation: BrowserIsolation;
  /** Whether the browser itself answers, asked while calls wait on it. */
  readonly pulse: BrowserPulse;
  #catalog: ToolCatalog | undefined;
  #reaper: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: RouterOptions) {
    const { settings, logger, profile } = options;
    this.settings = settings;
    this.#logger = logger;
    const sessions = new SessionRegistry(settings.sessionTtlMs);
    const sessionById = (id: string): Session | undefined => sessions.find(id);
    this.#sessions = sessions;
    const sessionInfo = (id: string): SessionInfo | undefined => {
      const session = sessions.find(id);
      return session && this.#info(session);
    };
    this.#feed = new ChangeFeed({ profile, logger, sessionInfo, queue: () => this.queue() });
    this.#humans = new HumanRequests((id) => this.#feed.sessionChanged(id));
    this.#policies = new ProfilePolicies({ profile, logger, feed: this.#feed });
    this.#pool = new WorkerPool({
      size: settings.workers,
      callTimeoutMs: settings.callTimeoutMs,
      workerIdleMs: settings.workerIdleMs,
      logger,
      startUpstream: options.startUpstream,
      ...(options.browserReady ? { browserReady: options.browserReady } : {}),
      isPaused: (id) => sessions.isPaused(id),
      prepare: (worker, upstream) => (this.#catalog ? this.#lifecycle.workerStarted(worker, upstream) : Promise.resolve()),
      onQueueChange: () => this.#feed.queueChanged(),
      onWorkersChange: () => this.#feed.emit({ type: 'workers', profile, workers: this.workers() }),
      endAtBrowser: (call) => this.#owners.endAtBrowser(call.subject ?? call.sessionId),
      startWouldWait: () => startWouldWait(this.#tabs.browser),
      browserAnswering: () => this.pulse.whenAnswering(),
      memory: { limitMb: settings.workerMemoryMb, sessionsOn: (worker) => sessions.onWorker(worker.index), relocate: (moving, to, since) => movePages(moving, this.#pool.of(moving), to, this.#tabs, since) },
    });
    this.#tabs = new TabIdentity({ available: () => this.catalog.upstreamHas('get_tab_id'), sessions: () => sessions.all(), sessionById });
    this.pulse = routerPulse(this.#tabs, logger, options.browserSilence);
    const isolation = new BrowserIsolation({ source: () => this.#sessionTabs.source, tabIds: () => this.catalog.upstreamHas('get_tab_id'), tabs: this.#tabs });
    this.#isolation = isolation;
    this.#pages = new PageAllocator(sessionById, settings.isolation === 'window' ? isolation.windows : undefined, isolation.isolatedContexts);
    this.#sessionTabs = new SessionTabs({ tabs: this.#tabs, pool: this.#pool, pages: this.#pages, logger, changed: (session) => this.#changed(session) });
    const changed = (session: Session): SessionInfo => this.#changed(session);
    const core = { sessions, pool: this.#pool, tabs: this.#tabs, sessionTabs: this.#sessionTabs, takeover: this.#takeover, logger, changed };
    this.#lifecycle = new SessionLifecycle({
      ...core,
      profile,
      humans: this.#humans,
      feed: this.#feed,
      browserReady: options.browserReady ?? (() => Promise.resolve()),
      contexts: () => isolation.contexts,
      closed: () => this.#closed,
    });
    this.#owners = new TabOwnership({ ...core, settings, filesDir: options.filesDir });
    const abandoned = async (session: Session, worker: Worker): Promise<void> => {
      await this.#sessionTabs.closeAll(session, worker, true);
      await disposeContexts(session, isolation.contexts, logger);
    };
    const parts = { sessions, pool: this.#pool, pages: this.#pages, tabs: this.#tabs, abandoned, front: new FrontTab() };
    this.#agents = new AgentTools({
      ...parts,
      filesDir: options.filesDir,
      isolation: settings.isolation,
      externalBrowser: options.externalBrowser,
      observe: options.observe,
      began: options.began,
      tabUrl: (tabId) => this.#owners.pageTabUrl(tabId),
      urlPolicy: options.urlPolicy ?? (() => undefined),
      catalog: () => this.catalog,
      timeoutFor: (tool) => settings.toolTimeoutsMs[tool] ?? settings.callTimeoutMs,
      changed: (session) => this.#feed.sessionChanged(session.id),
      humans: this.#humans,
      questionTimeoutMs: settings.questionTimeoutMs,
      confirmTimeoutMs: settings.confirmTimeoutMs,
      stuckPageMs: settings.stuckPageMs,
      filesMaxBytes: settings.sessionFilesMaxBytes,
      pulse: this.pulse,
      logger,
      redact: options.redactArgs,
      policies: () => this.#policies.current,
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
    return this.#lifecycle.create(label ?? null, id);
  }

  /** What the session journal keeps of every live session (see SessionJournal). */
  journal(): JournaledSession[] {
    return journalOf(this.#sessions.all());
  }

  /** Whether `journal()` would give what `written` holds (see `journalMatches`). */
  journalMatches(written: readonly JournaledSession[]): boolean {
    return journalMatches(this.#sessions.values(), written);
  }

  /** Brings back the sessions of a daemon that died, once this daemon adopted its Chrome (see SessionLifecycle). */
  restoreSessions(records: readonly JournaledSession[]): Promise<string[]> {
    return this.#lifecycle.restore(records);
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
    return this.#lifecycle.setPaused(id, paused);
  }

  /** Ends a session: its queued calls fail, and the tabs it opened are closed (see SessionLifecycle). */
  closeSession(id: string, reason: SessionCloseReason = 'closed'): Promise<{ closed: string; closedPages: number[] }> {
    return this.#lifecycle.close(id, reason);
  }

  /** Closes sessions idle longer than the TTL that no client holds, that are not paused and have nothing queued. */
  reap(now = Date.now()): string[] {
    return this.#lifecycle.reap(now);
  }

  // ---- calls and page control ----------------------------------------------------------------------------

  callTool(sessionId: string, name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult> {
    this.#assertOpen();
    return this.#agents.call(sessionId, name, args, options);
  }

  /** The profile's policy rules, for every session from its next call on; returns those kept (see ProfilePolicies). */
  setPolicies(rules: readonly PolicyRule[]): PolicyRule[] {
    return this.#policies.replace(rules);
  }

  policies(): PolicyRule[] {
    return this.#policies.rules();
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

  /** Follows the browser's own view of its tabs (openers, closings, crashes) and its contexts, for each connection. */
  watchTabs(source: TabSource | undefined, contexts?: ContextSource): void {
    this.#sessionTabs.watch(source);
    this.#isolation.follow(source ? contexts : undefined);
  }

  /** Whether a page target is a session's tab, or was opened from one (see TabOwnership). */
  isAgentPage(pageTargetId: string): boolean {
    return this.#owners.isAgentPage(pageTargetId);
  }

  /** The session a Chrome tab belongs to, by the browser's own tab and opener ids; undefined for nobody's. */
  sessionOfTab(tabId: string): Session | undefined {
    return this.#owners.sessionOfTab(tabId);
  }

  /** Where a download started in a Chrome tab goes; undefined for a tab of nobody's (see TabOwnership). */
  downloadOwner(tabId: string): Promise<DownloadOwner | undefined> {
    return this.#owners.downloadOwner(tabId);
  }

  /** A person is about to send input to a tab: refused while its session runs (see TabOwnership). */
  takeoverInput(tabId: string): () => void {
    return this.#owners.takeoverInput(tabId);
  }

  queue(): QueueEntry[] {
    return this.#pool.queue();
  }

  workers(): WorkerInfo[] {
    const sessions = this.#sessions.all();
    return this.#pool.infos().map((info) => ({ ...info, sessionIds: sessions.filter((session) => session.worker === info.index).map((session) => session.id) }));
  }

  /** Chrome went away, and every tab with it: sessions are told, and workers restart on their next call. */
  browserLost(reason: string): Promise<void> {
    return this.#lifecycle.browserLost(reason);
  }

  /**
   * Starts no more calls: queued and later ones fail with `reason` (they never ran), and so do the calls waiting on a
   * person (`forHumans`, unless the same: a question or a held call is asked again once it is back). The calls running
   * now go on to their answers. `close` follows.
   */
  stopTakingCalls(reason: TabmuxError, forHumans = reason): void {
    this.#humans.close(forHumans);
    this.#pool.closeQueues(reason);
  }

  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    clearInterval(this.#reaper);
    this.pulse.close();
    this.stopTakingCalls(
      new TabmuxError('daemon_stopping', 'the daemon is stopping'),
      new TabmuxError('daemon_stopping', 'the daemon stopped before a person answered; ask again once it is back'),
    );
    this.#lifecycle.endAll();
    await this.#pool.stop();
  }

  // ---- internals -----------------------------------------------------------------------------------------

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

