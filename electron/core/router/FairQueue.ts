import { TabmuxError } from '../../../shared/errors.js';
import type { QueueEntry } from '../../../shared/model.js';
import { newJob, type JobSpec, type OverrunCall, type QueueJob } from './QueueJob.js';

export type { JobSpec, OverrunCall } from './QueueJob.js';

/**
 * The queue in front of one upstream worker. Upstream runs one tool at a time behind a mutex that nobody can see
 * into or cancel, so the router keeps the queue itself: per-session FIFO, round-robin across sessions, at most
 * `maxInFlight` calls sent upstream, at most one running call per session (its calls stay in order).
 *
 * A call that times out (or is cancelled) while running is answered with an error at once, but keeps its slot until
 * upstream finishes it: the queue never sends more than upstream can account for. `onOverrun` is told, so that the
 * worker can end what the call started (see `Worker`) and free the slot for the next call.
 */
export class FairQueue {
  readonly #lanes = new Map<string, QueueJob[]>();
  readonly #running = new Map<number, QueueJob>();
  /** Sessions with queued calls, in order of arrival. */
  #order: string[] = [];
  /** When each session last got a turn (a counter, not a clock); dropped by forget() when the session ends. */
  readonly #lastServed = new Map<string, number>();
  #serveCounter = 0;
  readonly #isPaused: (sessionId: string) => boolean;
  readonly #onChange: () => void;
  readonly #onOverrun: (call: OverrunCall) => void;
  #closedReason: TabmuxError | undefined;

  constructor(
    private readonly worker: number,
    private readonly maxInFlight: number,
    options: { isPaused?: (sessionId: string) => boolean; onChange?: () => void; onOverrun?: (call: OverrunCall) => void } = {},
  ) {
    this.#isPaused = options.isPaused ?? (() => false);
    this.#onChange = options.onChange ?? (() => undefined);
    this.#onOverrun = options.onOverrun ?? (() => undefined);
  }

  get inFlight(): number {
    return this.#running.size;
  }

  get size(): number {
    let total = 0;
    for (const lane of this.#lanes.values()) {
      total += lane.length;
    }
    return total;
  }

  enqueue<T>(spec: JobSpec<T>): Promise<T> {
    if (this.#closedReason) {
      return Promise.reject(this.#closedReason);
    }
    return new Promise<T>((resolve, reject) => {
      const job = newJob(spec, resolve, reject);
      job.timer = setTimeout(() => this.#timeout(job), spec.timeoutMs);
      job.timer.unref();
      let lane = this.#lanes.get(job.sessionId);
      if (!lane) {
        lane = [];
        this.#lanes.set(job.sessionId, lane);
        this.#order.push(job.sessionId);
      }
      lane.push(job);
      spec.onQueued?.(job.callId);
      this.#pump();
      this.#onChange();
    });
  }

  entries(): QueueEntry[] {
    const entries: QueueEntry[] = [];
    for (const job of this.#running.values()) {
      entries.push(this.#entry(job, 'running'));
    }
    for (const sessionId of this.#order) {
      for (const job of this.#lanes.get(sessionId) ?? []) {
        entries.push(this.#entry(job, 'queued'));
      }
    }
    return entries;
  }

  /** The call running now (the first, where several may run), for status: who keeps the worker busy, since when. */
  runningCall(): { callId: number; sessionId: string; tool: string; since: number } | null {
    for (const job of this.#running.values()) {
      return { callId: job.callId, sessionId: job.subject ?? job.sessionId, tool: job.tool, since: job.startedAt ?? job.enqueuedAt };
    }
    return null;
  }

  /** Whether this queue runs or holds a call of any other session (or of the router's own work). */
  busyWithOthers(sessionId: string): boolean {
    for (const job of this.#running.values()) {
      if (job.sessionId !== sessionId) {
        return true;
      }
    }
    for (const [laneId, lane] of this.#lanes) {
      if (laneId !== sessionId && lane.length > 0) {
        return true;
      }
    }
    return false;
  }

  countFor(sessionId: string): { queued: number; running: number } {
    let running = 0;
    for (const job of this.#running.values()) {
      if (job.sessionId === sessionId) {
        running++;
      }
    }
    return { queued: this.#lanes.get(sessionId)?.length ?? 0, running };
  }

  /**
   * Cancels one call. A queued one never runs; a running one is answered with `cancelled` at once and its worker is
   * told to end it (`onOverrun`). Returns false for a call this queue does not hold.
   */
  cancel(callId: number, reason = 'the call was cancelled before it started'): boolean {
    const running = this.#running.get(callId);
    if (running) {
      this.#giveUp(running, new TabmuxError('cancelled', `${running.tool} was cancelled while it ran; what it started is being stopped. Check the page state before retrying`));
      return true;
    }
    for (const [sessionId, lane] of this.#lanes) {
      const index = lane.findIndex((job) => job.callId === callId);
      if (index !== -1) {
        const [job] = lane.splice(index, 1);
        if (job) {
          this.#settle(job, new TabmuxError('cancelled', reason));
        }
        this.#dropEmptyLane(sessionId);
        this.#onChange();
        return true;
      }
    }
    return false;
  }

  /** Drops every queued call matching the filter (a closed session, a vanished client). Running calls finish. */
  cancelWhere(filter: (job: { sessionId: string; subject: string | undefined; owner: string | undefined }) => boolean, error: TabmuxError): number {
    let count = 0;
    for (const [sessionId, lane] of this.#lanes) {
      const keep: QueueJob[] = [];
      for (const job of lane) {
        if (filter(job)) {
          this.#settle(job, error);
          count++;
        } else {
          keep.push(job);
        }
      }
      this.#lanes.set(sessionId, keep);
      this.#dropEmptyLane(sessionId);
    }
    if (count > 0) {
      this.#onChange();
    }
    return count;
  }

  /** Gives up on every running call matching the filter (its client went away): each is answered and ended. */
  endRunningWhere(filter: (job: { sessionId: string; owner: string | undefined }) => boolean, error: TabmuxError): number {
    let count = 0;
    for (const job of [...this.#running.values()]) {
      if (!job.settled && filter(job)) {
        this.#giveUp(job, error);
        count++;
      }
    }
    return count;
  }

  /** Resolves once the call has left its slot (at once for a call that is not running), or after `timeoutMs`; true if it left. */
  whenFinished(callId: number, timeoutMs: number): Promise<boolean> {
    const job = this.#running.get(callId);
    if (!job) {
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
      void job.finished.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** The running calls that were given up on and still hold their slot. */
  overrun(): OverrunCall[] {
    return [...this.#running.values()].filter((job) => job.settled).map((job) => ({ callId: job.callId, sessionId: job.sessionId, subject: job.subject, tool: job.tool }));
  }

  /** Fails everything queued and refuses new calls; running calls are left to finish or fail on their own. */
  close(error: TabmuxError): void {
    this.#closedReason = error;
    this.cancelWhere(() => true, error);
  }

  /** Forgets a session that ended. */
  forget(sessionId: string): void {
    this.#lastServed.delete(sessionId);
  }

  /** Re-examines the lanes, for example after a session was resumed. */
  kick(): void {
    this.#pump();
  }

  #entry(job: QueueJob, state: 'queued' | 'running'): QueueEntry {
    return {
      callId: job.callId,
      sessionId: job.sessionId,
      tool: job.tool,
      worker: this.worker,
      state,
      enqueuedAt: job.enqueuedAt,
      startedAt: job.startedAt,
    };
  }

  #pump(): void {
    while (this.#running.size < this.maxInFlight) {
      const job = this.#next();
      if (!job) {
        return;
      }
      this.#start(job);
    }
  }

  /**
   * Round-robin: among sessions with work that may run now, the one served least recently goes first (a newcomer
   * counts as never served), so a session with a long backlog cannot starve one that just arrived.
   */
  #next(): QueueJob | undefined {
    const busy = new Set<string>();
    for (const job of this.#running.values()) {
      busy.add(job.sessionId);
    }
    let chosen: string | undefined;
    let chosenServed = Infinity;
    for (const sessionId of this.#order) {
      if (busy.has(sessionId) || this.#isPaused(sessionId)) {
        continue;
      }
      const served = this.#lastServed.get(sessionId) ?? 0;
      if (served < chosenServed) {
        chosen = sessionId;
        chosenServed = served;
      }
    }
    if (chosen === undefined) {
      return undefined;
    }
    const job = this.#lanes.get(chosen)?.shift();
    this.#lastServed.set(chosen, ++this.#serveCounter);
    this.#dropEmptyLane(chosen);
    return job;
  }

  #start(job: QueueJob): void {
    job.startedAt = Date.now();
    this.#running.set(job.callId, job);
    const finish = (): void => {
      this.#running.delete(job.callId);
      job.markFinished();
      this.#pump();
      this.#onChange();
    };
    // A job that throws synchronously must still free its slot: run it inside a promise chain.
    Promise.resolve()
      .then(() => job.run())
      .then(
      (value) => {
        if (!job.settled) {
          job.settled = true;
          clearTimeout(job.timer);
          job.resolve(value);
        }
        finish();
      },
      (error: unknown) => {
        this.#settle(job, TabmuxError.from(error));
        finish();
      },
    );
  }

  #timeout(job: QueueJob): void {
    if (job.settled) {
      return;
    }
    if (job.startedAt === null) {
      const lane = this.#lanes.get(job.sessionId);
      const index = lane?.indexOf(job) ?? -1;
      if (lane && index !== -1) {
        lane.splice(index, 1);
        this.#dropEmptyLane(job.sessionId);
      }
      this.#settle(
        job,
        this.#isPaused(job.sessionId)
          ? new TabmuxError('session_paused', `${job.tool} was not run: this session is paused by the user, who has taken over its tab. Wait a while, then retry`)
          : new TabmuxError('timeout', `${job.tool} waited ${job.timeoutMs} ms in the queue without starting; other calls on this worker are slow (see tabmux daemon status)`),
      );
      this.#onChange();
      return;
    }
    this.#giveUp(
      job,
      new TabmuxError('timeout', `${job.tool} did not finish within ${job.timeoutMs} ms and was stopped; what it started may have partly happened. Check the page state before retrying`),
    );
  }

  /** Answers a running call with `error` and tells the worker to end it. */
  #giveUp(job: QueueJob, error: TabmuxError): void {
    if (job.settled) {
      return;
    }
    this.#settle(job, error);
    this.#onChange();
    this.#onOverrun({ callId: job.callId, sessionId: job.sessionId, subject: job.subject, tool: job.tool });
  }

  #settle(job: QueueJob, error: TabmuxError): void {
    if (job.settled) {
      return;
    }
    job.settled = true;
    clearTimeout(job.timer);
    job.reject(error);
  }

  #dropEmptyLane(sessionId: string): void {
    const lane = this.#lanes.get(sessionId);
    if (lane && lane.length === 0) {
      this.#lanes.delete(sessionId);
      this.#order = this.#order.filter((id) => id !== sessionId);
    }
  }
}
