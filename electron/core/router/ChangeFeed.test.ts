import { describe, expect, it } from 'vitest';
import type { DaemonEvent, QueueEntry, SessionInfo } from '../../../shared/model.js';
import { Logger } from '../platform/Logger.js';
import { ChangeFeed } from './ChangeFeed.js';
import { Session } from './Session.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup() {
  const sessions = new Map(['sess-a', 'sess-b'].map((id) => [id, new Session(id, id.slice(5), null, 0, 0)]));
  let queue: QueueEntry[] = [];
  const warnings: string[] = [];
  const logger = new Logger('test', (line) => warnings.push(line), 'warn');
  const feed = new ChangeFeed({
    profile: 'p',
    logger,
    sessionInfo: (id): SessionInfo | undefined => sessions.get(id)?.info({ queued: 0, running: 0 }),
    queue: () => queue,
  });
  const events: DaemonEvent[] = [];
  return { feed, sessions, events, warnings, setQueue: (entries: QueueEntry[]) => (queue = entries) };
}

function entry(sessionId: string): QueueEntry {
  return { callId: 1, sessionId, tool: 'click', worker: 0, state: 'queued', enqueuedAt: 0, startedAt: null };
}

function kinds(events: readonly DaemonEvent[]): string[] {
  return events.map((event) => (event.type === 'session.updated' ? `session.updated ${event.session.id}` : event.type));
}

describe('ChangeFeed', () => {
  it('coalesces a burst into one event per session and one queue event', async () => {
    const { feed, events } = setup();
    feed.subscribe((event) => events.push(event));
    feed.sessionChanged('sess-a');
    feed.sessionChanged('sess-a');
    feed.queueChanged();
    feed.sessionChanged('sess-b');
    feed.queueChanged();
    expect(events).toEqual([]);
    await tick();
    expect(kinds(events)).toEqual(['session.updated sess-a', 'session.updated sess-b', 'queue']);
  });

  it('updates sessions that join or leave the queue, and drops ended ones', async () => {
    const { feed, events, sessions, setQueue } = setup();
    feed.subscribe((event) => events.push(event));
    setQueue([entry('sess-a')]);
    feed.queueChanged();
    await tick();
    expect(kinds(events)).toEqual(['session.updated sess-a', 'queue']);
    events.length = 0;
    setQueue([]);
    sessions.delete('sess-b');
    feed.sessionChanged('sess-b');
    feed.queueChanged();
    await tick();
    expect(kinds(events)).toEqual(['session.updated sess-a', 'queue']);
  });

  it('keeps nothing while nobody listens, and stops sending to a listener that left', async () => {
    const { feed, events } = setup();
    feed.sessionChanged('sess-a');
    const stop = feed.subscribe((event) => events.push(event));
    await tick();
    expect(events).toEqual([]);
    feed.emit({ type: 'tabs', profile: 'p', tabs: [] });
    stop();
    feed.emit({ type: 'tabs', profile: 'p', tabs: [] });
    expect(kinds(events)).toEqual(['tabs']);
  });

  it('tells watchers of each session change and each session end at once, building no event for them', async () => {
    const { feed, events } = setup();
    let told = 0;
    const stop = feed.watchChanges(() => told++);
    feed.sessionChanged('sess-a');
    feed.queueChanged();
    expect(told).toBe(1);
    feed.emit({ type: 'session.closed', profile: 'p', sessionId: 'sess-b', reason: 'closed' });
    feed.emit({ type: 'tabs', profile: 'p', tabs: [] });
    expect(told).toBe(2);
    // Nobody listens: what a watcher heard leaves nothing to flush later.
    const later = feed.subscribe((event) => events.push(event));
    await tick();
    expect(events).toEqual([]);
    later();
    stop();
    feed.sessionChanged('sess-a');
    expect(told).toBe(2);
  });

  it('logs a listener that throws and still serves the others', () => {
    const { feed, events, warnings } = setup();
    feed.subscribe(() => {
      throw new Error('boom');
    });
    feed.subscribe((event) => events.push(event));
    feed.emit({ type: 'tabs', profile: 'p', tabs: [] });
    expect(events).toHaveLength(1);
    expect(warnings.join('')).toMatch(/event listener failed: boom/);
  });
});
