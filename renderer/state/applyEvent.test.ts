import { describe, expect, it } from 'vitest';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import { applyEvent, applyEvents } from './applyEvent.js';
import { emptyServerState, fromSnapshot, type ServerState } from './ServerState.js';
import { makeQueueEntry, makeSession, makeStatus, makeTab, makeView, makeWorker, stoppedView } from './testData.js';

const A = 'sess-aaaaaaaaaaaaaaaa';
const B = 'sess-bbbbbbbbbbbbbbbb';

function loaded(): ServerState {
  return fromSnapshot({
    profiles: [
      makeView('work', {
        status: makeStatus('work', {
          sessions: [makeSession({ id: A, label: 'claude' })],
          queue: [makeQueueEntry({ callId: 1, sessionId: A })],
        }),
        tabs: [makeTab({ pageId: 1, owner: A, origin: 'created' })],
      }),
      stoppedView('home'),
    ],
  });
}

describe('fromSnapshot', () => {
  it('splits each profile view into the slices', () => {
    const state = loaded();
    expect(state.loaded).toBe(true);
    expect(Object.keys(state.profiles).sort()).toEqual(['home', 'work']);
    expect(state.profiles['work']?.daemon?.pid).toBe(100);
    expect(state.profiles['work']?.workers).toHaveLength(1);
    expect(state.sessions['work']?.[A]?.label).toBe('claude');
    expect(state.queue['work']).toHaveLength(1);
    expect(state.tabs['work']).toHaveLength(1);
  });

  it('keeps the status lists out of the daemon summary', () => {
    const daemon = loaded().profiles['work']?.daemon;
    expect(daemon).toBeDefined();
    expect(daemon && 'sessions' in daemon).toBe(false);
    expect(daemon && 'workers' in daemon).toBe(false);
  });

  it('gives a stopped profile empty slices and no daemon', () => {
    const state = loaded();
    expect(state.profiles['home']).toEqual({ name: 'home', kind: 'launched', endpoint: null, state: 'stopped', lastError: null, unanswered: false, daemon: null, workers: [] });
    expect(state.sessions['home']).toEqual({});
    expect(state.queue['home']).toEqual([]);
    expect(state.tabs['home']).toEqual([]);
  });

  it('starts from an unloaded empty state', () => {
    expect(emptyServerState()).toEqual({ loaded: false, profiles: {}, sessions: {}, tabs: {}, queue: {}, policies: {} });
  });
});

describe('applyEvent: profile events', () => {
  it('replaces everything about the profile', () => {
    const state = applyEvent(loaded(), { type: 'profile', profile: stoppedView('work') });
    expect(state.profiles['work']?.state).toBe('stopped');
    expect(state.profiles['work']?.daemon).toBeNull();
    expect(state.sessions['work']).toEqual({});
    expect(state.queue['work']).toEqual([]);
    expect(state.tabs['work']).toEqual([]);
  });

  it('adds a profile it did not know', () => {
    const state = applyEvent(loaded(), { type: 'profile', profile: makeView('new') });
    expect(state.profiles['new']?.state).toBe('ready');
  });

  it('leaves other profiles untouched by reference', () => {
    const before = loaded();
    const after = applyEvent(before, { type: 'profile', profile: { ...stoppedView('home'), state: 'starting' } });
    expect(after.sessions['work']).toBe(before.sessions['work']);
    expect(after.profiles['work']).toBe(before.profiles['work']);
    expect(after.profiles['home']?.state).toBe('starting');
  });

  it('carries the last error of a crash', () => {
    const state = applyEvent(loaded(), { type: 'profile', profile: { ...stoppedView('home'), state: 'crashed', lastError: 'Chrome exited (code 1)' } });
    expect(state.profiles['home']?.lastError).toBe('Chrome exited (code 1)');
  });
});

describe('applyEvent: daemon events', () => {
  const daemon = (event: Extract<SupervisorEvent, { type: 'daemon' }>['event'], profile = 'work'): SupervisorEvent => ({
    type: 'daemon',
    profile,
    event,
  });

  it('upserts an updated session', () => {
    const updated = makeSession({ id: A, label: 'claude', activity: 'busy' });
    const added = makeSession({ id: B, label: 'cursor' });
    const state = applyEvents(loaded(), [
      daemon({ type: 'session.updated', profile: 'work', session: updated }),
      daemon({ type: 'session.updated', profile: 'work', session: added }),
    ]);
    expect(state.sessions['work']?.[A]?.activity).toBe('busy');
    expect(state.sessions['work']?.[B]?.label).toBe('cursor');
  });

  it('creates the session map for a profile that had none', () => {
    const base = { ...loaded(), sessions: {} };
    const state = applyEvent(base, daemon({ type: 'session.updated', profile: 'work', session: makeSession({ id: A }) }));
    expect(Object.keys(state.sessions['work'] ?? {})).toEqual([A]);
  });

  it('removes a closed session and ignores closing an unknown one', () => {
    const before = loaded();
    const state = applyEvent(before, daemon({ type: 'session.closed', profile: 'work', sessionId: A, reason: 'expired' }));
    expect(state.sessions['work']).toEqual({});
    expect(before.sessions['work']?.[A]).toBeDefined();
    const same = applyEvent(state, daemon({ type: 'session.closed', profile: 'work', sessionId: B, reason: 'closed' }));
    expect(same).toBe(state);
  });

  it("keeps a profile's pushed policy rules, replaced by the next push", () => {
    const rule = { id: 'pol-1a2b3c', tools: ['click'], url: '*.pay.example', action: 'confirm' as const, createdAt: 1 };
    const state = applyEvent(loaded(), daemon({ type: 'policies', profile: 'work', policies: [rule] }));
    expect(state.policies['work']).toEqual([rule]);
    expect(applyEvent(state, daemon({ type: 'policies', profile: 'work', policies: [] })).policies['work']).toEqual([]);
  });

  it('replaces queue, tabs and workers', () => {
    const queue = [makeQueueEntry({ callId: 7, sessionId: A, state: 'running', startedAt: 11_000 })];
    const tabs = [makeTab({ pageId: 4 }), makeTab({ pageId: 5, owner: A })];
    const workers = [makeWorker({ selectedPageId: 4 }), makeWorker({ index: 1, pid: 201 })];
    const state = applyEvents(loaded(), [
      daemon({ type: 'queue', profile: 'work', queue }),
      daemon({ type: 'tabs', profile: 'work', tabs }),
      daemon({ type: 'workers', profile: 'work', workers }),
    ]);
    expect(state.queue['work']).toBe(queue);
    expect(state.tabs['work']).toBe(tabs);
    expect(state.profiles['work']?.workers).toBe(workers);
    expect(state.profiles['work']?.daemon?.pid).toBe(100);
  });

  it('updates the daemon state and error', () => {
    const state = applyEvent(loaded(), daemon({ type: 'daemon', profile: 'work', state: 'degraded', lastError: 'worker 0 restarting' }));
    expect(state.profiles['work']?.daemon?.state).toBe('degraded');
    expect(state.profiles['work']?.daemon?.lastError).toBe('worker 0 restarting');
    expect(state.profiles['work']?.state).toBe('ready');
  });

  it('keeps the activity log\'s failure until an event says it is over', () => {
    const failing = { error: 'cannot write to /home/u/.local/share/tabmux/profiles/work/activity: ENOSPC: no space left on device, write', failingSince: 5, pending: 3, dropped: 0 };
    const state = applyEvent(loaded(), daemon({ type: 'daemon', profile: 'work', state: 'ready', lastError: null, activityLog: failing }));
    expect(state.profiles['work']?.daemon?.activityLog).toEqual(failing);
    const unrelated = applyEvent(state, daemon({ type: 'daemon', profile: 'work', state: 'degraded', lastError: 'worker 0 restarting' }));
    expect(unrelated.profiles['work']?.daemon?.activityLog).toEqual(failing);
    const healthy = { error: null, failingSince: null, pending: 0, dropped: 0 };
    const over = applyEvent(unrelated, daemon({ type: 'daemon', profile: 'work', state: 'ready', lastError: null, activityLog: healthy }));
    expect(over.profiles['work']?.daemon?.activityLog).toEqual(healthy);
  });

  it('ignores a daemon state change for a profile without a daemon', () => {
    const before = loaded();
    expect(applyEvent(before, daemon({ type: 'daemon', profile: 'home', state: 'ready', lastError: null }, 'home'))).toBe(before);
  });

  it('ignores events for a profile it has not seen', () => {
    const before = loaded();
    const event = daemon({ type: 'session.updated', profile: 'ghost', session: makeSession({ id: A }) }, 'ghost');
    expect(applyEvent(before, event)).toBe(before);
  });

  it('does not mutate its input', () => {
    const before = loaded();
    const frozen = JSON.stringify(before);
    applyEvents(before, [
      daemon({ type: 'session.closed', profile: 'work', sessionId: A, reason: 'closed' }),
      daemon({ type: 'queue', profile: 'work', queue: [] }),
      { type: 'profile', profile: stoppedView('work') },
    ]);
    expect(JSON.stringify(before)).toBe(frozen);
  });
});
