import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonEvent, QueueEntry, SessionInfo } from '../../../shared/model.js';
import type { Logger } from '../platform/Logger.js';

export interface ChangeFeedOptions {
  profile: string;
  logger: Logger;
  /** A live session's current state, or undefined once it has ended. */
  sessionInfo: (id: string) => SessionInfo | undefined;
  queue: () => QueueEntry[];
}

/**
 * Events for subscribers (the UI, `tabmux watch`). Session and queue changes come in bursts (every queued call
 * changes both), so they are coalesced into one `session.updated` per session and one `queue` event per tick; other
 * events go out as they happen. With nobody listening, nothing is kept and nothing is scheduled: the daemon's own
 * parts that follow sessions (the session journal, the idle clock) are watchers, told of each change as it happens
 * (a session ending included), so an agent's call with no UI attached builds no events at all.
 */
export class ChangeFeed {
  readonly #listeners = new Set<(event: DaemonEvent) => void>();
  #dirtySessions = new Set<string>();
  #queueDirty = false;
  /** Sessions in the queue at the last flush: their counts change when they leave it. */
  #queuedSessions = new Set<string>();
  #flushScheduled = false;
  /** Told at once of every session change, before any coalescing (what must be on file before a reply). */
  readonly #watchers = new Set<() => void>();

  constructor(private readonly options: ChangeFeedOptions) {}

  subscribe(listener: (event: DaemonEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: DaemonEvent): void {
    if (event.type === 'session.closed') {
      this.#notifyWatchers();
    }
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.logger.warn(`event listener failed: ${TabmuxError.from(error).message}`);
      }
    }
  }

  /** Calls `watcher` synchronously on every session change, and when a session ends; returns the way to stop. */
  watchChanges(watcher: () => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  sessionChanged(id: string): void {
    this.#notifyWatchers();
    this.#dirtySessions.add(id);
    this.#scheduleFlush();
  }

  queueChanged(): void {
    this.#queueDirty = true;
    this.#scheduleFlush();
  }

  #notifyWatchers(): void {
    for (const watcher of this.#watchers) {
      watcher();
    }
  }

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
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    const { profile } = this.options;
    this.#flushScheduled = false;
    const dirty = [...this.#dirtySessions];
    this.#dirtySessions.clear();
    for (const id of dirty) {
      this.#emitSession(id);
    }
    if (!this.#queueDirty) {
      return;
    }
    this.#queueDirty = false;
    const queue = this.options.queue();
    const inQueue = new Set(queue.map((entry) => entry.sessionId));
    for (const id of new Set([...inQueue, ...this.#queuedSessions])) {
      if (!dirty.includes(id)) {
        this.#emitSession(id);
      }
    }
    this.#queuedSessions = inQueue;
    this.emit({ type: 'queue', profile, queue });
  }

  #emitSession(id: string): void {
    const session = this.options.sessionInfo(id);
    if (session) {
      this.emit({ type: 'session.updated', profile: this.options.profile, session });
    }
  }
}
