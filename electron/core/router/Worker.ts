import type { WorkerInfo, WorkerState } from '../../../shared/model.js';
import type { ToolResult } from '../../../shared/protocol.js';
import { TabmuxError } from '../../../shared/errors.js';
import { Backoff } from '../platform/Backoff.js';
import type { Upstream } from '../upstream/UpstreamClient.js';
import { FairQueue, type OverrunCall } from './FairQueue.js';
import type { TraceState } from './traceOwnership.js';

/**
 * How long a call that was given up on may take to end once the browser was asked to stop it (its page's script
 * terminated), before its upstream child is replaced. Upstream ignores cancellation and runs one call at a time, so
 * the replacement is what guarantees the next call a free worker.
 */
export const OVERRUN_GRACE_MS = 1000;

/**
 * How long a call given up on gets before a replacement upstream starts on the side. Terminating a page's script ends
 * its call within milliseconds; a call still running after this is likely to need the replacement, which then starts
 * during the rest of the grace instead of after it.
 */
export const SPARE_AFTER_MS = 200;

/** How often a call given up on is asked to end again, while it runs on (see `Worker.#askToEnd`). */
export const STOP_AGAIN_MS = 100;

export interface WorkerOptions {
  isPaused: (sessionId: string) => boolean;
  onChange: () => void;
  /** Starts the worker's upstream, or makes `spawned` (a process started ahead, see `spawn`) its upstream. */
  start: (index: number, spawned?: Promise<Upstream>) => Promise<Upstream>;
  /** Starts an upstream process only, for a replacement that may not be needed: `start` prepares it if it is. */
  spawn?: (index: number) => Promise<Upstream>;
  ready?: () => Promise<void>;
  /** Stops at the browser what a call that was given up on started (its page's script); bounded by the caller. */
  endAtBrowser?: (call: OverrunCall) => Promise<void>;
  /** Once the browser itself answers: at once (false) while it does, else when it answers again (true; see `BrowserPulse`). */
  browserAnswering?: () => Promise<boolean>;
  /** Told when the worker replaces its upstream, and why. */
  onRecycle?: (worker: Worker, reason: string) => void;
  /**
   * Told after every change of `state` (with `lastError` and the upstream already updated): watchers such as the
   * dashboard otherwise keep whatever state the last unrelated event carried, e.g. "starting" for a worker long ready.
   */
  onStateChange?: (worker: Worker) => void;
}

/**
 * One upstream child and everything addressed in its terms: its queue, which session owns which of its page ids,
 * and its own selected page (diagnostic only).
 */
export class Worker {
  upstream: Upstream | null = null;
  #state: WorkerState = 'stopped';
  lastError: string | null = null;
  selectedPageId: number | null = null;
  /** Its upstream's resident memory in MiB at the memory watch's last reading; null without one (see `WorkerMemoryWatch`). */
  residentMb: number | null = null;
  /** pageId (in this worker's terms) -> owning session id. */
  readonly owners = new Map<number, string>();
  readonly queue: FairQueue;
  sessions = 0;
  /** When the last session left (for stopping idle extra workers). */
  idleSince = Date.now();
  /** Upstream's one performance trace recording, and the session it belongs to (see traceOwnership.ts). */
  readonly trace: TraceState = { owner: null, recording: false };
  /** pageId -> Chrome tab id, learned with get_tab_id; valid until this worker's upstream restarts. */
  readonly tabIds = new Map<number, string>();
  #starting: Promise<Upstream> | undefined;
  /** Set when the pool stops: no upstream starts after that (see `retire`). */
  #retired = false;
  /** Replacements started ahead (see `#endOverrun`) while they may still become the upstream, for `retire` to close. */
  readonly #spares = new Set<Promise<Upstream>>();
  /** Unexpected exits: two in a row restart at once, then 1 s, 2 s … up to 60 s; a minute without one starts over. */
  readonly #backoff = new Backoff({ initialMs: 1000, maxMs: 60_000, freeFailures: 2, resetAfterMs: 60_000 });

  readonly #start: (spawned?: Promise<Upstream>) => Promise<Upstream>;
  readonly #spawn: (() => Promise<Upstream>) | undefined;
  /** The browser is there and prepared: asked before every call, since upstream reaches the browser only in calls. */
  readonly #ready: () => Promise<void>;

  readonly #endAtBrowser: (call: OverrunCall) => Promise<void>;
  readonly #browserAnswering: () => Promise<boolean>;
  readonly #onRecycle: (worker: Worker, reason: string) => void;
  readonly #onStateChange: (worker: Worker) => void;

  constructor(
    readonly index: number,
    maxInFlight: number,
    options: WorkerOptions,
  ) {
    this.queue = new FairQueue(index, maxInFlight, { ...options, onOverrun: (call) => void this.#endOverrun(call) });
    this.#start = (spawned) => options.start(index, spawned);
    const spawn = options.spawn;
    this.#spawn = spawn ? () => spawn(index) : undefined;
    this.#ready = options.ready ?? (() => Promise.resolve());
    this.#endAtBrowser = options.endAtBrowser ?? (() => Promise.resolve());
    this.#browserAnswering = options.browserAnswering ?? (() => Promise.resolve(false));
    this.#onRecycle = options.onRecycle ?? (() => undefined);
    this.#onStateChange = options.onStateChange ?? (() => undefined);
  }

  /** An extra worker (not the first) with no sessions and no call queued or running: stopping it loses nothing. */
  get isSpare(): boolean {
    return this.index !== 0 && this.sessions === 0 && this.queue.size === 0 && this.queue.inFlight === 0;
  }

  get state(): WorkerState {
    return this.#state;
  }

  set state(next: WorkerState) {
    if (next === this.#state) {
      return;
    }
    this.#state = next;
    this.#onStateChange(this);
  }

  /**
   * Runs a queued job's work once the worker's upstream is there and prepared: a job that gets its slot while a
   * replacement upstream is still finding its sessions' tabs waits for that.
   */
  async whenReady<T>(run: () => Promise<T>): Promise<T> {
    await this.ensureStarted();
    return run();
  }

  /**
   * Starts the upstream once (or again after it died); concurrent callers share the same start. `spawned` is a
   * process started ahead for this (a replacement); it is closed if it is not used.
   */
  ensureStarted(spawned?: Promise<Upstream>): Promise<Upstream> {
    if (this.#retired) {
      closeUnused(spawned);
      return Promise.reject(this.#stoppedError());
    }
    const start = (): Promise<Upstream> => this.#start(spawned);
    if (this.upstream || this.#starting) {
      closeUnused(spawned);
    }
    // A start in progress first: while it finds its sessions' tabs, `upstream` points at the new process for that
    // work alone, and calls must wait until it is done.
    if (this.#starting) {
      return this.#starting;
    }
    if (this.upstream) {
      return Promise.resolve(this.upstream);
    }
    const wait = this.#backoff.remainingMs();
    if (!this.#starting && wait > 0) {
      closeUnused(spawned);
      return Promise.reject(
        new TabmuxError('upstream_unavailable', `upstream worker ${this.index} crashed repeatedly (${this.lastError ?? 'unknown'}); next restart in ${Math.ceil(wait / 1000)} s`),
      );
    }
    if (!this.#starting) {
      this.state = 'starting';
      this.#starting = start().then(
        async (upstream) => {
          if (this.#retired) {
            // The pool stopped while this process started: closed here, or nobody would ever stop it.
            this.#starting = undefined;
            await upstream.close('the daemon stopped');
            throw this.#stoppedError();
          }
          this.upstream = upstream;
          this.lastError = null;
          this.#starting = undefined;
          this.state = 'ready';
          return upstream;
        },
        (error: unknown) => {
          this.lastError = TabmuxError.from(error).message;
          this.#starting = undefined;
          this.state = 'failed';
          throw error;
        },
      );
    }
    return this.#starting;
  }

  /** Records an unexpected exit; the third in a row waits before the next restart (see the backoff above). */
  noteFailure(error: string): void {
    this.#backoff.fail();
    this.upstream = null;
    this.lastError = error;
    this.tabIds.clear();
    this.trace.owner = null;
    this.trace.recording = false;
    this.state = 'failed';
  }

  /**
   * The pool is stopping: no upstream starts after this; the running one is closed, and so is one still starting or
   * started ahead as a replacement, once its process is there. Resolves when they are all closed.
   */
  async retire(): Promise<void> {
    this.#retired = true;
    this.state = 'stopped';
    const upstream = this.upstream;
    this.upstream = null;
    const closeSpare = (spare: Promise<Upstream>): Promise<void> => spare.then((process) => process.close('the daemon stopped'), () => undefined);
    await Promise.all([upstream?.close(), this.#starting?.catch(() => undefined), ...[...this.#spares].map(closeSpare)]);
  }

  #stoppedError(): TabmuxError {
    return new TabmuxError('daemon_stopping', `upstream worker ${this.index} has stopped with the daemon`);
  }

  /**
   * Stops the upstream on purpose (Chrome went away); running calls fail with `reason`. A worker whose upstream never
   * started, or was stopped before, keeps its state: there was nothing to restart.
   */
  async stopUpstream(reason: string, options: { immediately?: boolean } = {}): Promise<void> {
    const upstream = this.upstream;
    const running = upstream !== null || this.#starting !== undefined;
    this.upstream = null;
    this.tabIds.clear();
    this.trace.owner = null;
    this.trace.recording = false;
    if (!running) {
      return;
    }
    this.state = 'restarting';
    await upstream?.close(reason, options);
  }

  /**
   * Replaces an upstream that is stuck in a call (a script that never yields, a wait the browser never ends): the
   * process is killed at once, the call fails with `reason`, and a fresh process starts for the next call, finding
   * the sessions' tabs again by Chrome tab id (their snapshot tokens go stale, and they are told so). A worker already
   * being replaced is left alone.
   */
  async recycle(reason: string, spare?: Promise<Upstream>): Promise<void> {
    if (!this.upstream) {
      closeUnused(spare);
      return;
    }
    this.#onRecycle(this, reason);
    await this.stopUpstream(`the call was stopped: ${reason}. Check the page state, then retry`, { immediately: true });
    if (spare || this.sessions > 0 || this.queue.size > 0) {
      // Started now (or ahead, as `spare`) rather than on the next call: that call then waits for little or nothing.
      this.ensureStarted(spare).catch(() => undefined);
    }
  }

  /**
   * A call was given up on while upstream ran it. First the browser is asked to stop it (the page's script is
   * terminated, which ends most stuck calls within milliseconds); if the call still holds the worker after a short
   * grace, the worker's upstream is replaced. Either way the next call gets the worker within about a second.
   */
  async #endOverrun(call: OverrunCall): Promise<void> {
    const upstream = this.upstream;
    if (!upstream) {
      return;
    }
    // The grace runs from the moment the call was given up on, whatever the browser takes to answer.
    if (await this.#askToEnd(call, SPARE_AFTER_MS)) {
      return;
    }
    // A worker waiting on a browser that does not answer is not stuck itself, and a new one could not reach the browser
    // either (the sessions would only lose their page ids): it is judged again once the browser answers.
    if ((await this.#browserAnswering()) && (this.upstream !== upstream || (await this.#askToEnd(call, SPARE_AFTER_MS)))) {
      return;
    }
    const spare = this.#retired ? undefined : this.#spawn?.();
    if (spare) {
      this.#spares.add(spare);
    }
    try {
      if (await this.#askToEnd(call, OVERRUN_GRACE_MS - SPARE_AFTER_MS)) {
        closeUnused(spare);
        return;
      }
      if (this.upstream === upstream) {
        await this.recycle(`${call.tool} ran past its time limit and did not stop when asked`, spare);
      } else {
        closeUnused(spare);
      }
    } finally {
      if (spare) {
        this.#spares.delete(spare);
      }
    }
  }

  /**
   * Asks the browser to end the call's script every STOP_AGAIN_MS for `ms`, until the call finishes; true if it did.
   * Asked once, the browser ends the script running then or the next one to start, and a call given up on early may
   * not have started its own yet: upstream runs small scripts of its own in the page first, which take the one ending.
   */
  async #askToEnd(call: OverrunCall, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      this.#endAtBrowser(call).catch(() => undefined);
      const left = deadline - Date.now();
      if (await this.queue.whenFinished(call.callId, Math.max(0, Math.min(STOP_AGAIN_MS, left)))) {
        return true;
      }
      if (left <= STOP_AGAIN_MS) {
        return false;
      }
    }
  }

  /** Calls upstream, once the browser is ready, restarting upstream first if it died since the call was queued. */
  async call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    await this.#ready();
    const upstream = this.upstream ?? (await this.ensureStarted());
    return upstream.callTool(name, args);
  }

  info(): WorkerInfo {
    return {
      index: this.index,
      pid: this.upstream?.pid ?? null,
      state: this.state,
      selectedPageId: this.selectedPageId,
      inFlight: this.queue.inFlight,
      sessions: this.sessions,
      lastError: this.lastError,
      busy: this.queue.runningCall(),
      ...(this.residentMb === null ? {} : { residentMb: this.residentMb }),
    };
  }
}

/** A process started ahead that turned out not to be needed. */
function closeUnused(spawned: Promise<Upstream> | undefined): void {
  spawned?.then((upstream) => upstream.close('not needed'), () => undefined).catch(() => undefined);
}
