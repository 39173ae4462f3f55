import { randomBytes } from 'node:crypto';
import { TabmuxError, type SessionGoneCode } from '../../../shared/errors.js';
import type { SessionCloseReason } from '../../../shared/model.js';
import { Session } from './Session.js';

/** How many ended session ids are remembered, so a late call hears "expired" or "closed" rather than "unknown". */
const ENDED_MEMORY = 10_000;

/**
 * Which sessions exist on a profile: their ids and token prefixes, who holds each one, which are paused, which have
 * been idle long enough to go, and how the recently ended ones ended.
 */
export class SessionRegistry {
  readonly #sessions = new Map<string, Session>();
  readonly #ended = new Map<string, SessionCloseReason>();

  constructor(private readonly sessionTtlMs: number) {}

  /** Creates a session pinned to `worker`; `id` is given when an agent names its own session. */
  add(label: string | null, worker: number, id?: string): Session {
    const sessionId = id ?? this.#newId();
    const session = new Session(sessionId, this.#shortFor(sessionId), label, worker, Date.now());
    this.#sessions.set(sessionId, session);
    this.#ended.delete(sessionId);
    return session;
  }

  /** A live session, or the error that says why there is none. */
  get(id: string): Session {
    const session = this.#sessions.get(id);
    if (session) {
      return session;
    }
    throw this.#goneError(id);
  }

  find(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  all(): Session[] {
    return [...this.#sessions.values()];
  }

  /** The sessions in the order `all` gives them, without a copy (for a look that changes nothing). */
  values(): IterableIterator<Session> {
    return this.#sessions.values();
  }

  onWorker(index: number): Session[] {
    return this.all().filter((session) => session.worker === index);
  }

  /** Ends a session and remembers how; returns it so its pages and calls can be dealt with. */
  remove(id: string, reason: SessionCloseReason): Session {
    const session = this.get(id);
    this.#sessions.delete(id);
    this.#ended.set(id, reason);
    if (this.#ended.size > ENDED_MEMORY) {
      const oldest = this.#ended.keys().next().value;
      if (oldest !== undefined) {
        this.#ended.delete(oldest);
      }
    }
    return session;
  }

  /** Forgets every session at once (the daemon is stopping). */
  clear(): void {
    this.#sessions.clear();
  }

  /** Gives a session to a connection; another connection holding it is a refusal. */
  bind(id: string, connectionId: string): Session {
    const session = this.get(id);
    if (session.boundBy !== null && session.boundBy !== connectionId) {
      throw new TabmuxError('session_owned', `session ${id} is already bound to another client; use a different session or wait until that client disconnects`);
    }
    session.boundBy = connectionId;
    session.lastUsedAt = Date.now();
    return session;
  }

  /** Lets a connection's hold go; a stale unbind (someone else holds it now, or it ended) does nothing. */
  unbind(id: string, connectionId: string): Session | undefined {
    const session = this.#sessions.get(id);
    if (session?.boundBy !== connectionId) {
      return undefined;
    }
    session.boundBy = null;
    session.lastUsedAt = Date.now();
    return session;
  }

  setPaused(id: string, paused: boolean): Session {
    const session = this.get(id);
    session.paused = paused;
    session.lastUsedAt = Date.now();
    return session;
  }

  isPaused(id: string): boolean {
    return this.#sessions.get(id)?.paused ?? false;
  }

  /** Sessions idle longer than the TTL that no client holds, that are not paused and not `busy`. */
  expired(now: number, busy: (session: Session) => boolean): string[] {
    return this.all()
      .filter((session) => !session.owned && !session.paused && !busy(session) && now - session.lastUsedAt >= this.sessionTtlMs)
      .map((session) => session.id);
  }

  #goneError(id: string): TabmuxError {
    const ended = this.#ended.get(id);
    const code: SessionGoneCode = ended === undefined ? 'unknown_session' : ended === 'expired' ? 'session_expired' : 'session_closed';
    switch (code) {
      case 'session_expired':
        return new TabmuxError(code, `session ${id} expired after ${idleTime(this.sessionTtlMs)} idle; create a new one with: tabmux session create`);
      case 'session_closed':
        return new TabmuxError(code, `session ${id} was closed; create a new one with: tabmux session create`);
      case 'unknown_session':
        return new TabmuxError(code, `unknown session ${id}; list sessions with: tabmux session list, or create one with: tabmux session create`);
    }
  }

  #newId(): string {
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
    const taken = new Set(this.all().map((session) => session.short));
    for (let length = 8; length <= base.length; length++) {
      const short = base.slice(0, length);
      if (!taken.has(short)) {
        return short;
      }
    }
    return randomBytes(8).toString('hex');
  }
}

/** A TTL as a person reads it: seconds under a minute (a 3 s TTL is not "0 min"), minutes above. */
export function idleTime(ms: number): string {
  return ms < 60_000 ? `${Math.max(1, Math.round(ms / 1000))} s` : `${Math.round(ms / 60_000)} min`;
}
