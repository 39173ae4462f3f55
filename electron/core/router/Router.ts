import { randomBytes } from 'node:crypto';
import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonEvent, QueueEntry, SessionCloseReason, SessionInfo, TabInfo, WorkerInfo } from '../../../shared/model.js';
import type { SessionPageResult, ToolInfo, ToolResult } from '../../../shared/protocol.js';
import type { Logger } from '../Logger.js';
import type { Upstream } from '../UpstreamClient.js';
import { Session } from './Session.js';
import { ToolCatalog, type AgentToolOptions } from './ToolCatalog.js';
import { Worker } from './Worker.js';
import { SessionCalls, SYSTEM_LANE } from './SessionCalls.js';
import { pagesInResponse } from './pageListText.js';
import { syncPages } from './responseRewriter.js';
import { textOf } from '../../../shared/toolResult.js';

export interface RouterSettings {
  workers: number;
  sessionTtlMs: number;
  reapIntervalMs: number;
  callTimeoutMs: number;
  /** How long an extra worker (not the first) may have no sessions before it is stopped. */
  workerIdleMs: number;
  /** Per-tool timeouts that override callTimeoutMs. */
  toolTimeoutsMs: Readonly<Record<string, number>>;
}

export const DEFAULT_SETTINGS: RouterSettings = {
  workers: 4,
  workerIdleMs: 5 * 60_000,
  sessionTtlMs: 30 * 60_000,
  reapIntervalMs: 60_000,
  callTimeoutMs: 120_000,
  // Audits and traces legitimately run for minutes.
  toolTimeoutsMs: { lighthouse_audit: 300_000, performance_start_trace: 300_000, performance_stop_trace: 300_000 },
};

export interface RouterOptions {
  profile: string;
  settings: RouterSettings;
  logger: Logger;
  startUpstream: (workerIndex: number) => Promise<Upstream>;
}

export interface CallOptions {
  /** Connection id of the caller, so its queued calls go when it vanishes. */
  owner?: string | undefined;
  onQueued?: ((callId: number) => void) | undefined;
}

const EXPIRED_MEMORY = 10_000;

/**
 * Sessions on one profile: who owns which page on which upstream worker, how calls are queued, and when idle
 * sessions go. Everything a session does to upstream runs as one job in its worker's fair queue, so compound steps
 * (open a page, then act on it) never interleave with another session's calls on the same worker.
 */
export class Router {
  readonly settings: RouterSettings;
  readonly #sessions = new Map<string, Session>();
  readonly #ended = new Map<string, SessionCloseReason>();
  readonly #workers: Worker[];
  readonly #listeners = new Set<(event: DaemonEvent) => void>();
  readonly #logger: Logger;
  readonly #profile: string;
  readonly #startUpstream: (workerIndex: number) => Promise<Upstream>;
  readonly #calls: SessionCalls;
  #catalog: ToolCatalog | undefined;
  #reaper: NodeJS.Timeout | undefined;
  #dirtySessions = new Set<string>();
  #queueDirty = false;
  #queuedSessions = new Set<string>();
  #flushScheduled = false;
  #closed = false;

  constructor(options: RouterOptions) {
    this.settings = options.settings;
    this.#logger = options.logger;
    this.#profile = options.profile;
    this.#startUpstream = options.startUpstream;
    const workerOptions = {
      isPaused: (sessionId: string) => this.#sessions.get(sessionId)?.paused ?? false,
      onChange: () => this.#markQueueDirty(),
      start: (index: number) => this.#launchWorker(index),
    };
    this.#workers = Array.from({ length: Math.max(1, options.settings.workers) }, (_, index) => new Worker(index, 1, workerOptions));
    this.#calls = new SessionCalls({
      sessionById: (id) => this.#sessions.get(id),
      tabOwner: (tabId) => this.#tabOwner(tabId),
      catalog: () => this.catalog,
      changed: (session) => this.#markSessionDirty(session.id),
    });
  }

  /** Starts the first worker and learns upstream's tools; other workers start when sessions need them. */
  async start(): Promise<void> {
    const first = this.#workers[0];
    if (!first) {
      throw new TabmuxError('internal', 'router has no workers');
    }
    const upstream = await first.ensureStarted();
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

  onEvent(listener: (event: DaemonEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Pushes an event that did not come from the router itself (the daemon's state) to subscribers. */
  publish(event: DaemonEvent): void {
    this.#emit(event);
  }

  agentTools(options: AgentToolOptions = {}): ToolInfo[] {
    return this.catalog.agentTools(options);
  }

  // ---- sessions ------------------------------------------------------------------------------------------

  createSession(label?: string | null, id?: string): SessionInfo {
    this.#assertOpen();
    const sessionId = id ?? this.#newSessionId();
    const worker = this.#leastLoadedWorker();
    const short = this.#shortFor(sessionId);
    const session = new Session(sessionId, short, label ?? null, worker.index, Date.now());
    this.#sessions.set(sessionId, session);
    this.#ended.delete(sessionId);
    worker.sessions++;
    this.#logger.info(`session ${sessionId} created${label ? ` (${label})` : ''} on worker ${worker.index}`);
    this.#markSessionDirty(sessionId);
    return this.#info(session);
  }

  session(id: string): Session {
    const session = this.#sessions.get(id);
    if (session) {
      return session;
    }
    const ended = this.#ended.get(id);
    if (ended === 'expired') {
      throw new TabmuxError('session_expired', `session ${id} expired after ${Math.round(this.settings.sessionTtlMs / 60_000)} min idle; create a new one with: tabmux session create`);
    }
    if (ended) {
      throw new TabmuxError('session_closed', `session ${id} was closed; create a new one with: tabmux session create`);
    }
    throw new TabmuxError('unknown_session', `unknown session ${id}; list sessions with: tabmux session list, or create one with: tabmux session create`);
  }

  sessionInfo(id: string): SessionInfo {
    return this.#info(this.session(id));
  }

  listSessions(): SessionInfo[] {
    return [...this.#sessions.values()].map((session) => this.#info(session));
  }

  bind(id: string, connectionId: string): SessionInfo {
    const session = this.session(id);
    if (session.boundBy !== null && session.boundBy !== connectionId) {
      throw new TabmuxError('session_owned', `session ${id} is already bound to another client; use a different session or wait until that client disconnects`);
    }
    session.boundBy = connectionId;
    session.lastUsedAt = Date.now();
    this.#markSessionDirty(id);
    return this.#info(session);
  }

  unbind(id: string, connectionId: string): void {
    const session = this.#sessions.get(id);
    if (session?.boundBy === connectionId) {
      session.boundBy = null;
      session.lastUsedAt = Date.now();
      this.#markSessionDirty(id);
    }
  }

  /** A client went away: drop its queued calls. Running calls finish (upstream cannot take them back). */
  dropOwner(connectionId: string): number {
    let dropped = 0;
    for (const worker of this.#workers) {
      dropped += worker.queue.cancelWhere((job) => job.owner === connectionId, new TabmuxError('cancelled', 'the client disconnected'));
    }
    return dropped;
  }

  setPaused(id: string, paused: boolean): SessionInfo {
    const session = this.session(id);
    session.paused = paused;
    session.lastUsedAt = Date.now();
    this.#workerOf(session).queue.kick();
    this.#markSessionDirty(id);
    return this.#info(session);
  }

  async closeSession(id: string, reason: SessionCloseReason = 'closed'): Promise<{ closed: string; closedPages: number[] }> {
    const session = this.session(id);
    const worker = this.#workerOf(session);
    this.#sessions.delete(id);
    this.#rememberEnded(id, reason);
    worker.sessions--;
    if (worker.sessions === 0) {
      worker.idleSince = Date.now();
    }
    worker.queue.forget(id);
    worker.queue.cancelWhere((job) => job.sessionId === id || job.subject === id, new TabmuxError(reason === 'expired' ? 'session_expired' : 'session_closed', `session ${id} was ${reason}`));
    const closedPages: number[] = [];
    const toClose = [...session.pages.values()].filter((page) => page.origin !== 'attached').map((page) => page.pageId);
    for (const page of session.pages.values()) {
      if (worker.owners.get(page.pageId) === id) {
        worker.owners.delete(page.pageId);
      }
    }
    if (toClose.length > 0 && worker.upstream && !this.#closed) {
      await worker.queue
        .enqueue({
          sessionId: SYSTEM_LANE,
          tool: 'close_page',
          timeoutMs: this.settings.callTimeoutMs,
          run: async () => {
            for (const pageId of toClose) {
              const result = await worker.call('close_page', { pageId });
              const text = textOf(result);
              if (!result.isError && !text.startsWith('The last open page cannot be closed')) {
                closedPages.push(pageId);
              }
              const listed = pagesInResponse(text);
              if (listed) {
                syncPages(worker, listed, (sid) => this.#sessions.get(sid));
              }
            }
          },
        })
        .catch((error: unknown) => this.#logger.warn(`closing pages of ${id} failed: ${TabmuxError.from(error).message}`));
    }
    this.#logger.info(`session ${id} ${reason}; closed pages [${closedPages.join(', ')}]`);
    this.#emit({ type: 'session.closed', profile: this.#profile, sessionId: id, reason });
    this.#markQueueDirty();
    return { closed: id, closedPages };
  }

  /** Closes sessions idle longer than the TTL that no client holds, that are not paused and have nothing queued. */
  reap(now = Date.now()): string[] {
    const expired: string[] = [];
    for (const session of this.#sessions.values()) {
      const counts = this.#workerOf(session).queue.countFor(session.id);
      if (session.owned || session.paused || counts.queued + counts.running > 0) {
        continue;
      }
      if (now - session.lastUsedAt >= this.settings.sessionTtlMs) {
        expired.push(session.id);
      }
    }
    for (const id of expired) {
      void this.closeSession(id, 'expired');
    }
    this.#stopIdleWorkers(now);
    return expired;
  }

  /** Extra workers cost ~190 MB each: one with no sessions for a while is stopped (it restarts on demand). */
  #stopIdleWorkers(now: number): void {
    for (const worker of this.#workers) {
      if (worker.index === 0 || worker.sessions > 0 || worker.queue.size > 0 || worker.queue.inFlight > 0 || !worker.upstream) {
        continue;
      }
      if (now - worker.idleSince >= this.settings.workerIdleMs) {
        this.#logger.info(`stopping idle upstream worker ${worker.index}`);
        void worker.stopUpstream('the worker was idle').then(() => {
          worker.state = 'stopped';
          this.#emit({ type: 'workers', profile: this.#profile, workers: this.workers() });
        });
      }
    }
  }

  // ---- tool calls ----------------------------------------------------------------------------------------

  async callTool(sessionId: string, name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult> {
    this.#assertOpen();
    const session = this.session(sessionId);
    session.lastUsedAt = Date.now();
    const kind = this.catalog.kind(name);
    if (!kind) {
      throw new TabmuxError('unknown_tool', `Tool ${name} not found`);
    }
    const worker = this.#workerOf(session);
    await worker.ensureStarted();
    const result = await worker.queue.enqueue({
      sessionId,
      tool: name,
      owner: options.owner,
      onQueued: options.onQueued,
      timeoutMs: this.settings.toolTimeoutsMs[name] ?? this.settings.callTimeoutMs,
      run: () => this.#calls.run(this.session(sessionId), worker, kind, name, args),
    });
    session.lastUsedAt = Date.now();
    this.#markSessionDirty(sessionId);
    return result;
  }

  cancel(callId: number): boolean {
    return this.#workers.some((worker) => worker.queue.cancel(callId));
  }

  // ---- page control (humans, scripts) --------------------------------------------------------------------

  sessionPage(id: string): SessionPageResult {
    return this.#pageResult(this.session(id));
  }

  /**
   * Gives a tab to a session. `pageId` is in the terms of `fromWorker` (by default worker 0, whose ids `tabmux pages`
   * shows); when the session lives on another worker the tab is found there by its Chrome tab id.
   */
  async attach(id: string, pageId: number, fromWorker = 0): Promise<SessionPageResult> {
    const session = this.session(id);
    let targetId = pageId;
    if (session.worker !== fromWorker) {
      const source = this.#workers[fromWorker];
      if (!source) {
        throw new TabmuxError('unknown_page', `there is no worker ${fromWorker}`);
      }
      await source.ensureStarted();
      const tabId = await source.queue.enqueue({
        sessionId: SYSTEM_LANE,
        subject: id,
        tool: 'get_tab_id',
        timeoutMs: this.settings.callTimeoutMs,
        run: () => this.#calls.tabIdOf(source, pageId),
      });
      if (tabId === undefined) {
        throw new TabmuxError('unknown_page', `no tab with page id ${pageId}; list tabs with: tabmux pages`);
      }
      targetId = await this.#system(id, 'attach', async (_session, worker) => {
        const map = await this.#calls.tabIdMap(worker);
        const found = map.get(tabId);
        if (found === undefined) {
          throw new TabmuxError('unknown_page', `tab ${pageId} is gone; list tabs with: tabmux pages`);
        }
        return found;
      });
    }
    return this.#system(id, 'attach', (current, worker) => this.#calls.attach(current, worker, targetId));
  }

  newPage(id: string, url: string, background: boolean): Promise<SessionPageResult> {
    return this.#system(id, 'new_page', (session, worker) => this.#calls.newPage(session, worker, url, background));
  }

  release(id: string, pageId?: number): Promise<SessionPageResult> {
    return this.#system(id, 'release', (session, worker) => Promise.resolve().then(() => this.#calls.release(session, worker, pageId)));
  }

  select(id: string, pageId: number, bringToFront: boolean): Promise<SessionPageResult> {
    return this.#system(id, 'select_page', (session, worker) => this.#calls.select(session, worker, pageId, bringToFront));
  }

  /** Every tab of the profile with its owner, as the first worker sees them. */
  async tabs(): Promise<TabInfo[]> {
    const worker = this.#workers[0];
    if (!worker) {
      return [];
    }
    await worker.ensureStarted();
    const tabs = await worker.queue.enqueue({
      sessionId: SYSTEM_LANE,
      tool: 'list_pages',
      timeoutMs: this.settings.callTimeoutMs,
      run: () => this.#calls.tabs(worker),
    });
    this.#emit({ type: 'tabs', profile: this.#profile, tabs });
    return tabs;
  }

  /** Opens an unowned tab in the foreground, for a human (to log in, say). */
  async openTab(url: string): Promise<TabInfo> {
    const worker = this.#workers[0];
    if (!worker) {
      throw new TabmuxError('internal', 'router has no workers');
    }
    await worker.ensureStarted();
    return worker.queue.enqueue({
      sessionId: SYSTEM_LANE,
      tool: 'new_page',
      timeoutMs: this.settings.callTimeoutMs,
      run: () => this.#calls.openTab(worker, url),
    });
  }

  // ---- status --------------------------------------------------------------------------------------------

  queue(): QueueEntry[] {
    return this.#workers.flatMap((worker) => worker.queue.entries());
  }

  workers(): WorkerInfo[] {
    return this.#workers.map((worker) => worker.info());
  }

  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    clearInterval(this.#reaper);
    const stopping = new TabmuxError('daemon_stopping', 'the daemon is stopping');
    for (const worker of this.#workers) {
      worker.queue.close(stopping);
    }
    for (const id of [...this.#sessions.keys()]) {
      this.#emit({ type: 'session.closed', profile: this.#profile, sessionId: id, reason: 'daemon_stopped' });
    }
    this.#sessions.clear();
    await Promise.all(
      this.#workers.map(async (worker) => {
        worker.state = 'stopped';
        await worker.upstream?.close();
      }),
    );
  }

  // ---- internals -----------------------------------------------------------------------------------------

  async #system<T>(id: string, tool: string, run: (session: Session, worker: Worker) => Promise<T>): Promise<T> {
    const session = this.session(id);
    const worker = this.#workerOf(session);
    await worker.ensureStarted();
    const result = await worker.queue.enqueue({
      sessionId: SYSTEM_LANE,
      subject: id,
      tool,
      timeoutMs: this.settings.callTimeoutMs,
      run: () => run(this.session(id), worker),
    });
    this.#markSessionDirty(id);
    return result;
  }

  #pageResult(session: Session): SessionPageResult {
    const info = this.#info(session);
    const current = session.currentPage;
    return { session: session.id, pageId: current?.pageId ?? null, url: current?.url ?? null, pages: info.pages };
  }

  async #launchWorker(index: number): Promise<Upstream> {
    const upstream = await this.#startUpstream(index);
    void upstream.closed.then(() => this.#onWorkerExit(index, upstream));
    const worker = this.#workers[index];
    if (worker && this.#catalog) {
      try {
        await this.#remapPages(worker, upstream);
      } catch (error) {
        await upstream.close();
        throw error;
      }
    }
    this.#emit({ type: 'workers', profile: this.#profile, workers: this.workers() });
    return upstream;
  }

  /**
   * A restarted upstream numbers the same tabs differently. Sessions keep their tabs (found again by Chrome tab id);
   * their old snapshot tokens stop working, and tabs that are gone are reported to their session as lost.
   */
  async #remapPages(worker: Worker, upstream: Upstream): Promise<void> {
    const sessions = [...this.#sessions.values()].filter((session) => session.worker === worker.index && session.pages.size > 0);
    worker.owners.clear();
    worker.tabIds.clear();
    if (sessions.length === 0) {
      return;
    }
    const previous = worker.upstream;
    worker.upstream = upstream;
    try {
      const byTab = await this.#calls.tabIdMap(worker);
      for (const session of sessions) {
        const lost: string[] = [];
        const pages = [...session.pages.values()];
        // Move every page out of the way first: old and new ids may overlap.
        session.pages.clear();
        const current = session.currentPageId;
        session.currentPageId = null;
        for (const page of pages) {
          const newId = page.tabId === null ? undefined : byTab.get(page.tabId);
          if (newId === undefined) {
            lost.push(`${page.pageId} (${page.url || 'no url'})`);
            continue;
          }
          const wasCurrent = page.pageId === current;
          page.pageId = newId;
          page.snapshotEpoch = null;
          page.snapshotUids = new Set();
          session.pages.set(newId, page);
          worker.owners.set(newId, session.id);
          if (wasCurrent) {
            session.currentPageId = newId;
          }
        }
        if (session.currentPageId === null) {
          const next = [...session.pages.values()].sort((a, b) => b.lastSelectedAt - a.lastSelectedAt)[0];
          session.currentPageId = next?.pageId ?? null;
        }
        session.notes.push(
          lost.length > 0
            ? `Note: the browser connection was restarted; your page(s) ${lost.join(', ')} were lost. Page-scoped tools open a fresh tab if you have none. Take a new snapshot before using uids.`
            : 'Note: the browser connection was restarted; your pages were kept but may have new ids (see list_pages). Take a new snapshot before using uids.',
        );
        this.#markSessionDirty(session.id);
      }
    } finally {
      worker.upstream = previous;
    }
  }

  /**
   * Chrome went away: every tab with it. Running calls fail at once with a clear error, every session is told its
   * pages were lost, and workers restart against the relaunched Chrome on their next call.
   */
  async browserLost(reason: string): Promise<void> {
    for (const session of this.#sessions.values()) {
      if (session.pages.size > 0) {
        const lost = [...session.pages.values()].map((page) => `${page.pageId} (${page.url || 'no url'})`);
        session.notes.push(`Note: Chrome restarted (${reason}); your page(s) ${lost.join(', ')} were lost. Page-scoped tools open a fresh tab. Take a new snapshot before using uids.`);
        session.pages.clear();
        session.currentPageId = null;
        this.#markSessionDirty(session.id);
      }
    }
    await Promise.all(
      this.#workers.map(async (worker) => {
        worker.owners.clear();
        worker.selectedPageId = null;
        await worker.stopUpstream(`Chrome exited while the call ran (${reason}); this session's pages were lost. Retry: a fresh tab will be opened once Chrome is back`);
      }),
    );
    this.#emit({ type: 'workers', profile: this.#profile, workers: this.workers() });
  }

  #onWorkerExit(index: number, upstream: Upstream): void {
    const worker = this.#workers[index];
    if (!worker || worker.upstream !== upstream || this.#closed) {
      return;
    }
    worker.noteFailure('chrome-devtools-mcp exited unexpectedly');
    this.#logger.warn(`upstream worker ${index} exited; it restarts on the next call`);
    this.#emit({ type: 'workers', profile: this.#profile, workers: this.workers() });
  }

  #workerOf(session: Session): Worker {
    const worker = this.#workers[session.worker];
    if (!worker) {
      throw new TabmuxError('internal', `session ${session.id} points at missing worker ${session.worker}`);
    }
    return worker;
  }

  #leastLoadedWorker(): Worker {
    let best: Worker | undefined;
    for (const worker of this.#workers) {
      if (!best || worker.sessions < best.sessions) {
        best = worker;
      }
    }
    if (!best) {
      throw new TabmuxError('internal', 'router has no workers');
    }
    return best;
  }

  #newSessionId(): string {
    for (;;) {
      const id = `sess-${randomBytes(8).toString('hex')}`;
      if (!this.#sessions.has(id) && !this.#ended.has(id)) {
        return id;
      }
    }
  }

  /** The token prefix: 8 hex digits of the id, lengthened in the rare case another live session already uses them. */
  #shortFor(id: string): string {
    const hex = id.replace(/^sess-/, '').replace(/[^0-9a-f]/g, '');
    const base = hex.length >= 4 ? hex : `${hex}${randomBytes(4).toString('hex')}`;
    const taken = new Set([...this.#sessions.values()].map((session) => session.short));
    for (let length = 8; length <= base.length; length++) {
      const short = base.slice(0, length);
      if (!taken.has(short)) {
        return short;
      }
    }
    return randomBytes(8).toString('hex');
  }

  #tabOwner(tabId: string): Session | undefined {
    for (const session of this.#sessions.values()) {
      for (const page of session.pages.values()) {
        if (page.tabId === tabId) {
          return session;
        }
      }
    }
    return undefined;
  }

  #rememberEnded(id: string, reason: SessionCloseReason): void {
    this.#ended.set(id, reason);
    if (this.#ended.size > EXPIRED_MEMORY) {
      const oldest = this.#ended.keys().next().value;
      if (oldest !== undefined) {
        this.#ended.delete(oldest);
      }
    }
  }

  #info(session: Session): SessionInfo {
    return session.info(this.#workerOf(session).queue.countFor(session.id));
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new TabmuxError('daemon_stopping', 'the daemon is stopping; start it again with: tabmux daemon start');
    }
  }

  #emit(event: DaemonEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.warn(`event listener failed: ${TabmuxError.from(error).message}`);
      }
    }
  }

  #markSessionDirty(id: string): void {
    this.#dirtySessions.add(id);
    this.#scheduleFlush();
  }

  #markQueueDirty(): void {
    this.#queueDirty = true;
    this.#scheduleFlush();
  }

  /** Coalesces bursts of changes into one event per session and one queue event per tick. */
  #scheduleFlush(): void {
    if (this.#listeners.size === 0) {
      this.#dirtySessions.clear();
      this.#queueDirty = false;
      return;
    }
    if (this.#flushScheduled) {
      return;
    }
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      const dirty = [...this.#dirtySessions];
      this.#dirtySessions.clear();
      for (const id of dirty) {
        const session = this.#sessions.get(id);
        if (session) {
          this.#emit({ type: 'session.updated', profile: this.#profile, session: this.#info(session) });
        }
      }
      if (this.#queueDirty) {
        this.#queueDirty = false;
        const queue = this.queue();
        // Sessions whose counts changed: those in the queue now and those that were in it at the last flush.
        const inQueue = new Set(queue.map((entry) => entry.sessionId));
        for (const id of new Set([...inQueue, ...this.#queuedSessions])) {
          const session = this.#sessions.get(id);
          if (session && !dirty.includes(id)) {
            this.#emit({ type: 'session.updated', profile: this.#profile, session: this.#info(session) });
          }
        }
        this.#queuedSessions = inQueue;
        this.#emit({ type: 'queue', profile: this.#profile, queue });
      }
    });
  }
}
