import { randomBytes } from 'node:crypto';
import { TabmuxError } from '../../../shared/errors.js';
import type { HumanActor, HumanRequest, SessionWaiting } from '../../../shared/model.js';

/** A person's answer to a request: a question's text, or a confirmation's decision (and the reason for a no). */
export interface HumanAnswer {
  text: string;
  by: HumanActor;
  at: number;
  /** For a confirmation: whether the call may run. */
  approved?: boolean;
}

interface Pending {
  request: HumanRequest;
  /** Its id as a cancellable call (negative, so it never meets a queued call's). */
  callId: number;
  /** The connection that asked: its request goes when it does. */
  owner: string | undefined;
  resolve: (answer: HumanAnswer) => void;
  reject: (error: TabmuxError) => void;
  timer: NodeJS.Timeout;
}

/** How many ended request ids are remembered, so a late answer hears why the request is gone. */
const ENDED_MEMORY = 1000;

/**
 * What agents wait on a person for. A request holds no worker and no queue slot: it is a promise and a timer, so
 * the session's other calls (and every other session's) go on while a person makes up their mind. Every request
 * ends exactly once: answered, timed out, or failed because its session or its connection went.
 */
export class HumanRequests {
  readonly #pending = new Map<string, Pending>();
  /** Ended request id -> why it ended, in words ("was answered", "timed out"). */
  readonly #ended = new Map<string, string>();
  #lastCallId = 0;

  /** `changed` is told the session whose waiting state changed (its SessionInfo shows it). */
  constructor(private readonly changed: (sessionId: string) => void) {}

  /**
   * Waits for a person's answer, at most `timeoutMs`; then fails with `timeoutMessage` (code `timeout`). `owner` is
   * the asking connection, whose requests `dropOwner` ends.
   */
  ask(
    fields: Omit<HumanRequest, 'id' | 'createdAt' | 'timeoutAt'>,
    timeoutMs: number,
    owner: string | undefined,
    timeoutMessage: string,
    onQueued?: (callId: number) => void,
  ): Promise<HumanAnswer> {
    const createdAt = Date.now();
    const request: HumanRequest = { ...fields, id: this.#newId(), createdAt, timeoutAt: createdAt + timeoutMs };
    const callId = --this.#lastCallId;
    const asked = new Promise<HumanAnswer>((resolve, reject) => {
      const timer = setTimeout(() => this.#end(request.id, 'timed out', (pending) => pending.reject(new TabmuxError('timeout', timeoutMessage))), timeoutMs);
      this.#pending.set(request.id, { request, callId, owner, resolve, reject, timer });
      this.changed(request.sessionId);
    });
    // The agent can take its call back (notifications/cancelled) as it can a queued one.
    onQueued?.(callId);
    return asked;
  }

  /** The agent cancelled the call that waits: the request goes from the list. Whether one did. */
  cancel(callId: number): boolean {
    const pending = [...this.#pending.values()].find((candidate) => candidate.callId === callId);
    if (!pending) {
      return false;
    }
    this.#end(pending.request.id, 'was given up: the agent cancelled its call', (ended) => ended.reject(new TabmuxError('cancelled', 'the call was cancelled')));
    return true;
  }

  /** Every waiting request, oldest first. */
  list(): HumanRequest[] {
    return [...this.#pending.values()].map((pending) => pending.request);
  }

  /** Answers a waiting request; a request that is gone (answered, timed out, its agent gone, never known) says so. */
  answer(id: string, text: string, by: HumanActor): HumanRequest {
    const pending = this.#waiting(id);
    if (pending.request.kind !== 'question') {
      throw new TabmuxError('invalid_params', `request ${id} is a call waiting for approval, not a question; decide it with: tabmux approve ${id}, or tabmux deny ${id} --reason TEXT`);
    }
    this.#end(id, 'was answered', (ended) => ended.resolve({ text, by, at: Date.now() }));
    return pending.request;
  }

  /** Approves or denies a call a policy holds; a request that is gone says so. */
  decide(id: string, approved: boolean, reason: string, by: HumanActor): HumanRequest {
    const pending = this.#waiting(id);
    if (pending.request.kind !== 'confirm') {
      throw new TabmuxError('invalid_params', `request ${id} is a question, not a call waiting for approval; answer it with: tabmux answer ${id} --text TEXT`);
    }
    this.#end(id, approved ? 'was approved' : 'was denied', (ended) => ended.resolve({ text: reason, by, at: Date.now(), approved }));
    return pending.request;
  }

  #waiting(id: string): Pending {
    const pending = this.#pending.get(id);
    if (!pending) {
      const why = this.#ended.get(id);
      throw new TabmuxError(
        'request_gone',
        why === undefined
          ? `no request ${id} waits for a person; list the waiting ones with: tabmux requests`
          : `request ${id} no longer waits: it ${why}; list the waiting ones with: tabmux requests`,
      );
    }
    return pending;
  }

  /** The session's oldest waiting request, for its SessionInfo; null when none waits. */
  waitingOf(sessionId: string): SessionWaiting | null {
    for (const { request } of this.#pending.values()) {
      if (request.sessionId === sessionId) {
        return { requestId: request.id, kind: request.kind, since: request.createdAt };
      }
    }
    return null;
  }

  isWaiting(sessionId: string): boolean {
    return this.waitingOf(sessionId) !== null;
  }

  /** The asking connection went away: nobody is left to read the answer. Returns how many requests ended. */
  dropOwner(owner: string): number {
    const gone = [...this.#pending.values()].filter((pending) => pending.owner === owner);
    for (const pending of gone) {
      this.#end(pending.request.id, 'was given up: the agent disconnected', (ended) => ended.reject(new TabmuxError('cancelled', 'the agent disconnected')));
    }
    return gone.length;
  }

  /** The session ended: its requests fail with `error`. */
  dropSession(sessionId: string, error: TabmuxError): void {
    for (const pending of [...this.#pending.values()]) {
      if (pending.request.sessionId === sessionId) {
        this.#end(pending.request.id, 'was given up: its session ended', (ended) => ended.reject(error));
      }
    }
  }

  /** The daemon stops: every request fails with `error`. */
  close(error: TabmuxError): void {
    for (const id of [...this.#pending.keys()]) {
      this.#end(id, 'was given up: the daemon stopped', (ended) => ended.reject(error));
    }
  }

  #end(id: string, why: string, settle: (pending: Pending) => void): void {
    const pending = this.#pending.get(id);
    if (!pending) {
      return;
    }
    clearTimeout(pending.timer);
    this.#pending.delete(id);
    this.#ended.set(id, why);
    if (this.#ended.size > ENDED_MEMORY) {
      const oldest = this.#ended.keys().next();
      if (!oldest.done) {
        this.#ended.delete(oldest.value);
      }
    }
    settle(pending);
    this.changed(pending.request.sessionId);
  }

  #newId(): string {
    let id: string;
    do {
      id = `req-${randomBytes(4).toString('hex')}`;
    } while (this.#pending.has(id) || this.#ended.has(id));
    return id;
  }
}
