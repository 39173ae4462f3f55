import { TabmuxError } from '../../../shared/errors.js';
import type { QueueEntry } from '../../../shared/model.js';

export interface JobSpec<T> {
  sessionId: string;
  tool: string;
  /** Who asked: a connection id, so a vanished client's queued calls can be dropped. */
  owner?: string | undefined;
  timeoutMs: number;
  run: () => Promise<T>;
  /** Told the call id as soon as the call is queued, so the caller can cancel it. */
  onQueued?: ((callId: number) => void) | undefined;
}

interface Job {
  callId: number;
  sessionId: string;
  tool: string;
  owner: string | undefined;
  enqueuedAt: number;
  startedAt: number | null;
  timeoutMs: number;
  timer: NodeJS.Timeout | undefined;
  settled: boolean;
  run: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: TabmuxError) => void;
}

let nextCallId = 1;

/**
 * The queue in front of one upstream worker. Upstream runs one tool at a time behind a mutex that nobody can see
 * into or cancel, so the router keeps the queue itself: per-session FIFO, round-robin across sessions, at most
 * `maxInFlight` calls sent upstream, at most one running call per session (its calls stay in order).
 *
 * A call that times out while running is answered with an error at once, but keeps its slot until upstream
 * finishes it: the queue never sends more than upstream can account for.
 */
export class FairQueue {
  readonly #lanes = new Map<string, Job[]>();
  readonly #running = new Map<number, Job>();
  /** Round-robin order of sessions; a session moves to the back when it gets a turn. */
  #order: string[] = [];
  readonly #isPaused: (sessionId: string) => boolean;
  readonly #onChange: () => void;
  #closedReason: TabmuxError | undefined;

  constructor(
    private readonly worker: number,
    private readonly maxInFlight: number,
    options: { isPaused?: (sessionId: string) => boolean; onChange?: () => void } = {},
  ) {
    this.#isPaused = options.isPaused ?? (() => false);
    this.#onChange = options.onChange ?? (() => undefined);
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
      const job: Job = {
        callId: nextCallId++,
        sessionId: spec.sessionId,
        tool: spec.tool,
        owner: spec.owner,
        enqueuedAt: Date.now(),
        startedAt: null,
        timeoutMs: spec.timeoutMs,
        timer: undefined,
        settled: false,
        run: spec.run,
        resolve: (value) => resolve(value as T),
        reject,
      };
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

  countFor(sessionId: string): { queued: number; running: number } {
    let running = 0;
    for (const job of this.#running.values()) {
      if (job.sessionId === sessionId) {
        running++;
      }
    }
    return { queued: this.#lanes.get(sessionId)?.length ?? 0, running };
  }

  /** Cancels one queued call. A call already sent upstream cannot be taken back; returns false for it. */
  cancel(callId: number, reason = 'the call was cancelled before it started'): boolean {
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
  cancelWhere(filter: (job: { sessionId: string; owner: string | undefined }) => boolean, error: TabmuxError): number {
    let count = 0;
    for (const [sessionId, lane] of this.#lanes) {
      const keep: Job[] = [];
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

  /** Fails everything queued and refuses new calls; running calls are left to finish or fail on their own. */
  close(error: TabmuxError): void {
    this.#closedReason = error;
    this.cancelWhere(() => true, error);
  }

  /** Re-examines the lanes, for example after a session was resumed. */
  kick(): void {
    this.#pump();
  }

  #entry(job: Job, state: 'queued' | 'running'): QueueEntry {
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

  #next(): Job | undefined {
    const busy = new Set<string>();
    for (const job of this.#running.values()) {
      busy.add(job.sessionId);
    }
    for (let i = 0; i < this.#order.length; i++) {
      const sessionId = this.#order[i];
      if (sessionId === undefined || busy.has(sessionId) || this.#isPaused(sessionId)) {
        continue;
      }
      const lane = this.#lanes.get(sessionId);
      const job = lane?.shift();
      if (!job) {
        continue;
      }
      this.#order.splice(i, 1);
      this.#order.push(sessionId);
      this.#dropEmptyLane(sessionId);
      return job;
    }
    return undefined;
  }

  #start(job: Job): void {
    job.startedAt = Date.now();
    this.#running.set(job.callId, job);
    const finish = (): void => {
      this.#running.delete(job.callId);
      this.#pump();
      this.#onChange();
    };
    job.run().then(
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

  #timeout(job: Job): void {
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
        new TabmuxError('timeout', `${job.tool} waited ${job.timeoutMs} ms in the queue without starting; other calls on this worker are slow (see tabmux daemon status)`),
      );
      this.#onChange();
      return;
    }
    this.#settle(
      job,
      new TabmuxError('timeout', `${job.tool} did not finish within ${job.timeoutMs} ms; it may still complete in the browser. Check the page state before retrying`),
    );
  }

  #settle(job: Job, error: TabmuxError): void {
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
