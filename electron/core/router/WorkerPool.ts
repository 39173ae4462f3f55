import { TabmuxError } from '../../../shared/errors.js';
import { SYSTEM_LANE_ID, type QueueEntry, type WorkerInfo } from '../../../shared/model.js';
import type { Logger } from '../platform/Logger.js';
import type { Upstream } from '../upstream/UpstreamClient.js';
import type { Session } from './Session.js';
import type { OverrunCall } from './FairQueue.js';
import { Worker } from './Worker.js';
import { WorkerMemoryWatch } from './WorkerMemoryWatch.js';

export interface WorkerPoolOptions {
  size: number;
  /** Timeout of the router's own upstream work (listing, opening and closing tabs for it). */
  callTimeoutMs: number;
  /** How long an extra worker (not the first) may have no sessions before it is stopped. */
  workerIdleMs: number;
  logger: Logger;
  startUpstream: (workerIndex: number) => Promise<Upstream>;
  /** Before every call to upstream: the browser is there and prepared (see `ProfileBrowser.ready`). */
  browserReady?: () => Promise<void>;
  isPaused: (sessionId: string) => boolean;
  /** Runs with every freshly started upstream before it takes calls; a throw stops that upstream again. */
  prepare: (worker: Worker, upstream: Upstream) => Promise<void>;
  onQueueChange: () => void;
  onWorkersChange: () => void;
  /** Stops at the browser what a call that was given up on started (see `Worker`). */
  endAtBrowser?: (call: OverrunCall) => Promise<void>;
  /**
   * Whether a worker started now would wait before it serves anyone: a JavaScript dialog holds a tab's renderer, and
   * a fresh upstream's first look at the browser may be at that tab (see `startWouldWait` in heldTabs.ts).
   */
  startWouldWait?: () => boolean | Promise<boolean>;
  /** Once the browser itself answers (see `Worker`). */
  browserAnswering?: () => Promise<boolean>;
  /**
   * A worker's resident memory past which its sessions move apart and it is replaced (see `WorkerMemoryWatch`), in
   * MiB, with the sessions pinned to a worker and how a session moves; 0 or absent: never.
   */
  memory?: { limitMb: number; sessionsOn: (worker: Worker) => Session[]; relocate: Relocate } | undefined;
}

/**
 * Why `WorkerPool.place` moves a session's calls to another worker, said to its agent (its next result: "your calls
 * moved to another upstream worker, since ...") and in the daemon's log.
 */
export const MOVED_SINCE = {
  busy: "the one they ran on was busy with another session's call",
  held: 'the one they ran on was not running, and a page that shows a dialog or does not respond would hold it as it starts',
} as const;

/** Moves a session's pages to worker `to`, in `to`'s queue, before its calls run there (see `WorkerPool.place`). */
export type Relocate = (session: Session, to: Worker, since: string) => Promise<void>;

/**
 * The upstream workers of a profile. Each session is pinned to the least loaded worker when it is created; workers
 * start on first need, restart after an unexpected exit, and extra ones stop when they have been idle a while.
 */
export class WorkerPool {
  readonly #workers: Worker[];
  /** Workers a session is moving to: not idle for another mover meanwhile. */
  readonly #reserved = new Set<Worker>();
  readonly #memory: WorkerMemoryWatch | undefined;
  #closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    const workerOptions = {
      isPaused: options.isPaused,
      onChange: options.onQueueChange,
      start: (index: number, spawned?: Promise<Upstream>) => this.#launch(index, spawned),
      spawn: (index: number) => options.startUpstream(index),
      ...(options.browserReady ? { ready: options.browserReady } : {}),
      ...(options.endAtBrowser ? { endAtBrowser: options.endAtBrowser } : {}),
      ...(options.browserAnswering ? { browserAnswering: options.browserAnswering } : {}),
      onRecycle: (worker: Worker, reason: string) => {
        options.logger.warn(`replacing upstream worker ${worker.index}: ${reason}`);
        options.onWorkersChange();
      },
      // Every start, readiness, failure and stop reaches the watchers, not only the moments the pool acts on.
      onStateChange: () => options.onWorkersChange(),
    };
    this.#workers = Array.from({ length: Math.max(1, options.size) }, (_, index) => new Worker(index, 1, workerOptions));
    const memory = options.memory;
    if (memory && memory.limitMb > 0) {
      this.#memory = new WorkerMemoryWatch({
        limitMb: memory.limitMb,
        workers: () => this.#workers,
        sessionsOn: memory.sessionsOn,
        moveToFree: (session, since) => this.moveToFree(session, memory.relocate, since),
        runSystem: (worker, tool, run) => this.runSystem(worker, tool, run),
        logger: options.logger,
        changed: options.onWorkersChange,
      });
      this.#memory.start();
    }
  }

  /** Worker 0: always there, started first, and the one whose page ids `tabmux pages` shows. */
  get first(): Worker {
    const worker = this.#workers[0];
    if (!worker) {
      throw new TabmuxError('internal', 'router has no workers');
    }
    return worker;
  }

  at(index: number): Worker | undefined {
    return this.#workers[index];
  }

  of(session: Session): Worker {
    const worker = this.#workers[session.worker];
    if (!worker) {
      throw new TabmuxError('internal', `session ${session.id} points at missing worker ${session.worker}`);
    }
    return worker;
  }

  /**
   * Picks the worker a new session is pinned to: the one with the fewest sessions, a running one before one that
   * must start first. Up to the pool's size every session thus gets a worker of its own.
   */
  pin(): Worker {
    let best = this.first;
    for (const worker of this.#workers) {
      if (worker.sessions < best.sessions || (worker.sessions === best.sessions && worker.upstream !== null && best.upstream === null)) {
        best = worker;
      }
    }
    best.sessions++;
    return best;
  }

  /**
   * Where a session's next call runs. It stays on its worker while that worker has nothing of another session's to
   * do, or while its own calls are there (they keep their order). When the worker runs or has queued another
   * session's call and another running worker is idle, the session moves there first: its pages are found again
   * in that worker's terms by Chrome tab id (see `renumber`), so a quick call never waits for another session's
   * long one. Moving makes its snapshot tokens stale; its next result says so. A session recording a performance
   * trace stays, since the recording lives in its worker.
   */
  async place(session: Session, relocate: Relocate): Promise<Worker> {
    // Asking the browser whether a start would wait takes a moment: everything is looked at again after it.
    let wouldWait: boolean | undefined;
    for (;;) {
      while (session.moving) {
        await session.moving;
      }
      const current = this.of(session);
      const own = current.queue.countFor(session.id);
      if (own.queued + own.running > 0 || session.paused || current.trace.owner === session.id) {
        return current;
      }
      if (current.queue.busyWithOthers(session.id)) {
        const idle = this.#idleWorker(current, session);
        return idle ? this.#move(session, current, idle, relocate, MOVED_SINCE.busy) : current;
      }
      if (!this.#insteadOf(current, session)) {
        return current;
      }
      if (wouldWait === undefined) {
        wouldWait = (await this.options.startWouldWait?.()) === true;
        continue;
      }
      const instead = wouldWait ? this.#insteadOf(current, session) : undefined;
      return instead ? this.#move(session, current, instead, relocate, MOVED_SINCE.held) : current;
    }
  }

  /**
   * Moves a session to a worker nobody is pinned to, if there is one and the session has nothing queued or running
   * where it is (its calls keep their order), is not paused and records no trace there; whether it moved.
   */
  async moveToFree(session: Session, relocate: Relocate, since: string): Promise<boolean> {
    const current = this.of(session);
    const own = current.queue.countFor(session.id);
    if (session.ended || session.moving || session.paused || own.queued + own.running > 0 || current.trace.owner === session.id) {
      return false;
    }
    const free = this.#workers.find((worker) => worker !== current && worker.sessions === 0 && !this.#reserved.has(worker));
    return free !== undefined && (await this.#move(session, current, free, relocate, since)) === free;
  }

  /** Moves a session to `target` through `relocate`, in `target`'s queue; it stays where it is if that fails. */
  async #move(session: Session, current: Worker, target: Worker, relocate: Relocate, since: string): Promise<Worker> {
    this.options.logger.info(`calls of session ${session.id} move from worker ${current.index} to worker ${target.index}, since ${since}`);
    this.#moveCount(current, target);
    this.#reserved.add(target);
    const moving = this.runSystem(target, 'move session', () => relocate(session, target, since), session.id).then(
      () => {
        if (session.ended) {
          // Closed while it moved: `leave` counted it off its old worker.
          this.#moveCount(target, current);
          return;
        }
        session.worker = target.index;
      },
      (error: unknown) => {
        this.#moveCount(target, current);
        this.options.logger.warn(`session ${session.id} stays on worker ${current.index}: ${TabmuxError.from(error).message}`);
      },
    );
    session.moving = moving.finally(() => {
      session.moving = null;
      this.#reserved.delete(target);
      this.options.onWorkersChange();
    });
    await session.moving;
    return this.of(session);
  }

  /**
   * A running worker to use instead of one that is not running, should starting it wait on a dialog another session's
   * page shows (`startWouldWait`): the fewest sessions first. The session works there at once; its own worker starts
   * later, for a session pinned to it once no dialog holds a tab.
   */
  #insteadOf(current: Worker, session: Session): Worker | undefined {
    if (current.upstream !== null || !this.options.startWouldWait) {
      return undefined;
    }
    let best: Worker | undefined;
    for (const worker of this.#workers) {
      if (worker === current || worker.upstream === null || this.#reserved.has(worker) || this.#keptApart(session, worker)) {
        continue;
      }
      if (!best || worker.sessions < best.sessions) {
        best = worker;
      }
    }
    return best;
  }

  /** A running worker with nothing to do, not about to take a moving session: the fewest sessions first. */
  #idleWorker(except: Worker, session: Session): Worker | undefined {
    let best: Worker | undefined;
    for (const worker of this.#workers) {
      if (worker === except || worker.upstream === null || worker.queue.size > 0 || worker.queue.inFlight > 0 || this.#reserved.has(worker) || this.#keptApart(session, worker)) {
        continue;
      }
      if (!best || worker.sessions < best.sessions) {
        best = worker;
      }
    }
    return best;
  }

  /** Whether `worker` serves a session `session` is kept apart from (see `Session.apart`). */
  #keptApart(session: Session, worker: Worker): boolean {
    return session.apart.size > 0 && (this.options.memory?.sessionsOn(worker) ?? []).some((other) => session.apart.has(other.id));
  }

  #moveCount(from: Worker, to: Worker): void {
    from.sessions--;
    if (from.sessions === 0) {
      from.idleSince = Date.now();
    }
    to.sessions++;
  }

  /**
   * A session ended: its worker no longer counts it, its queued calls and the router's jobs for it fail with
   * `error`, and its pages there have no owner. Returns the worker, which may still have to close those pages.
   */
  leave(session: Session, error: TabmuxError): Worker {
    const worker = this.of(session);
    worker.sessions--;
    if (worker.sessions === 0) {
      worker.idleSince = Date.now();
    }
    worker.queue.forget(session.id);
    worker.queue.cancelWhere((job) => job.sessionId === session.id || job.subject === session.id, error);
    for (const page of session.pages.values()) {
      if (worker.owners.get(page.pageId) === session.id) {
        worker.owners.delete(page.pageId);
      }
    }
    return worker;
  }

  /** Runs the router's own work on a worker, in its queue like any call; `subject` is the session it acts for. */
  async runSystem<T>(worker: Worker, tool: string, run: () => Promise<T>, subject?: string): Promise<T> {
    await worker.ensureStarted();
    return worker.queue.enqueue({ sessionId: SYSTEM_LANE_ID, subject, tool, timeoutMs: this.options.callTimeoutMs, run: () => worker.whenReady(run) });
  }

  /** A client went away: its queued calls are dropped, and its running ones ended (nobody waits for their answer). */
  dropOwner(connectionId: string): number {
    let dropped = 0;
    const error = new TabmuxError('cancelled', 'the client disconnected');
    for (const worker of this.#workers) {
      dropped += worker.queue.cancelWhere((job) => job.owner === connectionId, error);
      dropped += worker.queue.endRunningWhere((job) => job.owner === connectionId, error);
    }
    return dropped;
  }

  cancel(callId: number): boolean {
    return this.#workers.some((worker) => worker.queue.cancel(callId));
  }

  queue(): QueueEntry[] {
    return this.#workers.flatMap((worker) => worker.queue.entries());
  }

  infos(): WorkerInfo[] {
    return this.#workers.map((worker) => worker.info());
  }

  /** Extra workers cost ~190 MB each: one with no sessions for a while is stopped (it restarts on demand). */
  stopIdle(now: number): void {
    for (const worker of this.#workers) {
      if (!worker.isSpare || !worker.upstream) {
        continue;
      }
      if (now - worker.idleSince >= this.options.workerIdleMs) {
        this.options.logger.info(`stopping idle upstream worker ${worker.index}`);
        void worker.stopUpstream('the worker was idle').then(() => {
          worker.state = 'stopped';
          this.options.onWorkersChange();
        });
      }
    }
  }

  /**
   * Chrome went away, and every tab with it: running calls fail at once, and workers restart on their next call. An
   * extra worker with no sessions and nothing queued is stopped instead, as an idle one is: it starts on demand.
   */
  async browserLost(reason: string): Promise<void> {
    await Promise.all(
      this.#workers.map(async (worker) => {
        worker.owners.clear();
        worker.selectedPageId = null;
        await worker.stopUpstream(`Chrome exited while the call ran (${reason}); this session's pages were lost. Retry: a fresh tab will be opened once Chrome is back`);
        if (worker.isSpare && worker.state === 'restarting') {
          worker.state = 'stopped';
        }
      }),
    );
    this.options.onWorkersChange();
  }

  /** Refuses all queued and future calls with `reason`; `stop` then ends the upstreams. */
  closeQueues(reason: TabmuxError): void {
    this.#closed = true;
    this.#memory?.stop();
    for (const worker of this.#workers) {
      worker.queue.close(reason);
    }
  }

  /** Ends every upstream, also one still starting or started ahead as a replacement; none starts after this. */
  async stop(): Promise<void> {
    this.#memory?.stop();
    await Promise.all(this.#workers.map((worker) => worker.retire()));
  }

  async #launch(index: number, spawned?: Promise<Upstream>): Promise<Upstream> {
    const upstream = await (spawned ?? this.options.startUpstream(index));
    void upstream.closed.then(() => this.#onExit(index, upstream));
    const worker = this.#workers[index];
    if (worker) {
      try {
        await this.options.prepare(worker, upstream);
      } catch (error) {
        await upstream.close();
        throw error;
      }
    }
    // Watchers hear of it when the worker's state turns ready, which follows this return (see `onStateChange`).
    return upstream;
  }

  #onExit(index: number, upstream: Upstream): void {
    const worker = this.#workers[index];
    if (!worker || worker.upstream !== upstream || this.#closed) {
      return;
    }
    worker.noteFailure('chrome-devtools-mcp exited unexpectedly');
    this.options.logger.warn(`upstream worker ${index} exited; it restarts on the next call`);
    this.options.onWorkersChange();
  }
}
