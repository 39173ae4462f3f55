import { TabmuxError } from '../../../shared/errors.js';
import type { SessionCloseReason, SessionInfo } from '../../../shared/model.js';
import type { Logger } from '../platform/Logger.js';
import type { Upstream } from '../upstream/UpstreamClient.js';
import type { ChangeFeed } from './ChangeFeed.js';
import type { HumanRequests } from './HumanRequests.js';
import { fillFromJournal } from './journaledSessions.js';
import { remapPages, renumber } from './remapPages.js';
import type { Session } from './Session.js';
import type { JournaledSession } from './SessionJournal.js';
import type { SessionRegistry } from './SessionRegistry.js';
import type { SessionTabs } from './SessionTabs.js';
import { disposeContexts, type ContextSource } from './sessionContexts.js';
import type { TabIdentity } from './TabIdentity.js';
import type { Takeover } from './Takeover.js';
import type { Worker } from './Worker.js';
import type { WorkerPool } from './WorkerPool.js';

export interface SessionLifecycleOptions {
  profile: string;
  logger: Logger;
  sessions: SessionRegistry;
  pool: WorkerPool;
  tabs: TabIdentity;
  sessionTabs: SessionTabs;
  humans: HumanRequests;
  takeover: Takeover;
  feed: ChangeFeed;
  /** Before asking upstream for its pages: the browser is there and prepared. */
  browserReady: () => Promise<void>;
  /** The browser contexts of sessions' isolated contexts, on the current browser connection. */
  contexts: () => ContextSource | undefined;
  /** Whether the router has closed: a session that ends after that leaves its tabs and contexts alone. */
  closed: () => boolean;
  /** Marks a session changed for the feed and returns its current state. */
  changed: (session: Session) => SessionInfo;
}

/**
 * How sessions begin and end: created on a worker, brought back after a daemon died, paused and resumed, closed
 * with their trace, tabs and isolated contexts, reaped when idle, and told when Chrome took their pages with it.
 * A session also outlives its worker: a worker that starts again finds the session's tabs before it takes calls.
 */
export class SessionLifecycle {
  constructor(private readonly options: SessionLifecycleOptions) {}

  create(label: string | null, id: string | undefined): SessionInfo {
    const { sessions, pool, logger, changed } = this.options;
    const worker = pool.pin();
    const session = sessions.add(label, worker.index, id);
    logger.info(`session ${session.id} created${label ? ` (${label})` : ''} on worker ${worker.index}`);
    return changed(session);
  }

  /**
   * Brings back the sessions a daemon that died had, once this daemon adopted its Chrome: the same ids, labels,
   * pauses and epochs, on the first worker (started by then), with the pages whose tabs still exist found again by
   * Chrome tab id. A session all of whose tabs are gone is not restored. Each one's next result says the daemon
   * restarted and that its uid tokens are stale. Runs before anyone is served. Returns the ids restored.
   */
  async restore(records: readonly JournaledSession[]): Promise<string[]> {
    if (records.length === 0) {
      return [];
    }
    const { sessions, pool, tabs, logger, changed } = this.options;
    const worker = pool.first;
    await this.options.browserReady();
    const byTab = await tabs.pageIdsByTab(worker);
    const restored: string[] = [];
    for (const record of records) {
      const kept = record.pages.filter((page) => byTab.has(page.tabId));
      if (sessions.find(record.id) || (record.pages.length > 0 && kept.length === 0)) {
        continue;
      }
      worker.sessions++;
      const session = sessions.add(record.label, worker.index, record.id);
      fillFromJournal(session, record);
      renumber(session, worker, byTab, 'the tabmux daemon restarted and recovered on its own; your session was kept');
      logger.info(`session ${session.id} restored with ${session.pages.size} of its ${record.pages.length} page(s)`);
      changed(session);
      restored.push(session.id);
    }
    return restored;
  }

  setPaused(id: string, paused: boolean): SessionInfo {
    const session = this.options.sessions.setPaused(id, paused);
    if (!paused) {
      this.options.takeover.handedBack(id);
    }
    this.options.pool.of(session).queue.kick();
    return this.options.changed(session);
  }

  /**
   * Ends a session: its queued calls fail, and the tabs it opened are closed (attached ones are left open), by their
   * Chrome tab ids, so a worker that is down or busy with the session's last call does not keep them open.
   */
  async close(id: string, reason: SessionCloseReason): Promise<{ closed: string; closedPages: number[] }> {
    const { sessions, takeover, humans, pool, sessionTabs, feed, logger, profile } = this.options;
    const session = sessions.remove(id, reason);
    session.ended = true;
    takeover.handedBack(id);
    const ended = new TabmuxError(reason === 'expired' ? 'session_expired' : 'session_closed', `session ${id} was ${reason}`);
    humans.dropSession(id, ended);
    const worker = pool.leave(session, ended);
    if (!this.options.closed()) {
      await this.#stopTrace(session, worker);
    }
    const closedPages = this.options.closed() ? [] : await sessionTabs.closeAll(session, worker, false);
    if (!this.options.closed()) {
      // Its isolated contexts go with it, whatever tabs are left in them: nobody else may ever use their cookies.
      await disposeContexts(session, this.options.contexts(), logger);
    }
    logger.info(`session ${id} ${reason}; closed pages [${closedPages.join(', ')}]`);
    feed.emit({ type: 'session.closed', profile, sessionId: id, reason });
    feed.queueChanged();
    return { closed: id, closedPages };
  }

  /** Closes sessions idle longer than the TTL that no client holds, that are not paused and have nothing queued. */
  reap(now: number): string[] {
    const { sessions, pool, humans } = this.options;
    const expired = sessions.expired(now, (session) => {
      const counts = pool.of(session).queue.countFor(session.id);
      // A session waiting for a person is in use, however long the person takes.
      return counts.queued + counts.running > 0 || humans.isWaiting(session.id);
    });
    for (const id of expired) {
      void this.close(id, 'expired');
    }
    pool.stopIdle(now);
    return expired;
  }

  /**
   * Chrome went away: every tab with it. Running calls fail at once with a clear error, every session is told its
   * pages were lost, and workers restart against the relaunched Chrome on their next call.
   */
  async browserLost(reason: string): Promise<void> {
    for (const session of this.options.sessions.all()) {
      // Its isolated contexts went with the browser (or with the connection they were made on).
      session.contexts.clear();
      if (session.pages.size > 0) {
        const lost = session.dropAllPages();
        session.notes.push(`Note: Chrome restarted (${reason}); your page(s) ${lost.join(', ')} were lost. Page-scoped tools open a fresh tab. Take a new snapshot before using uids.`);
        this.options.changed(session);
      }
    }
    await this.options.pool.browserLost(reason);
  }

  /**
   * The router closes with the daemon, and every session ends with it. Their tabs are left as they are: the browser
   * closes with the daemon, or stays for the next daemon to adopt.
   */
  endAll(): void {
    const { sessions, feed, profile } = this.options;
    for (const session of sessions.all()) {
      feed.emit({ type: 'session.closed', profile, sessionId: session.id, reason: 'daemon_stopped' });
    }
    sessions.clear();
  }

  /**
   * A worker started once the router is up (a restart, or an extra worker's first start) finds its sessions' tabs
   * again before it takes calls.
   */
  async workerStarted(worker: Worker, upstream: Upstream): Promise<void> {
    const sessions = this.options.sessions.onWorker(worker.index).filter((session) => session.pages.size > 0);
    if (sessions.length > 0) {
      // Remapping asks upstream for its pages, which reaches the browser.
      await this.options.browserReady();
    }
    await remapPages(worker, upstream, sessions, this.options.tabs);
    for (const session of sessions) {
      this.options.changed(session);
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
    await this.options.pool
      .runSystem(worker, 'performance_stop_trace', () => worker.call('performance_stop_trace', { pageId: page.pageId }))
      .catch((error: unknown) => this.options.logger.warn(`stopping the trace of ${session.id} failed: ${TabmuxError.from(error).message}`));
    worker.trace.recording = false;
  }
}
