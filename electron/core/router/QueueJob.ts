import type { TabmuxError } from '../../../shared/errors.js';

export interface JobSpec<T> {
  sessionId: string;
  /** For the router's own jobs: the session they act for, so they go when it closes. */
  subject?: string | undefined;
  tool: string;
  /** Who asked: a connection id, so a vanished client's queued calls can be dropped. */
  owner?: string | undefined;
  timeoutMs: number;
  run: () => Promise<T>;
  /** Told the call id as soon as the call is queued, so the caller can cancel it. */
  onQueued?: ((callId: number) => void) | undefined;
}

/** A call that was sent upstream and then given up on: it timed out, or its caller cancelled it or went away. */
export interface OverrunCall {
  callId: number;
  sessionId: string;
  subject: string | undefined;
  tool: string;
}

/** One call in a queue: who asked, when, its time limit, and whether it has been answered. */
export interface QueueJob {
  callId: number;
  sessionId: string;
  subject: string | undefined;
  tool: string;
  owner: string | undefined;
  enqueuedAt: number;
  startedAt: number | null;
  timeoutMs: number;
  timer: NodeJS.Timeout | undefined;
  settled: boolean;
  /** Resolves once `run` has returned (or thrown): the slot is free again. */
  finished: Promise<void>;
  markFinished: () => void;
  run: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: TabmuxError) => void;
}

let nextCallId = 1;

/** A new job for `spec`, with the next call id; `resolve` and `reject` answer its caller (once: see `settled`). */
export function newJob<T>(spec: JobSpec<T>, resolve: (value: T) => void, reject: (error: TabmuxError) => void): QueueJob {
  let markFinished = (): void => undefined;
  const finished = new Promise<void>((done) => {
    markFinished = done;
  });
  return {
    callId: nextCallId++,
    sessionId: spec.sessionId,
    subject: spec.subject,
    tool: spec.tool,
    owner: spec.owner,
    enqueuedAt: Date.now(),
    startedAt: null,
    timeoutMs: spec.timeoutMs,
    timer: undefined,
    settled: false,
    finished,
    markFinished,
    run: spec.run,
    resolve: (value) => resolve(value as T),
    reject,
  };
}
