import { describe, expect, it } from 'vitest';
import type { DaemonStatus, SessionInfo } from '../../../shared/model.js';
import { foldDaemonEvent, type DaemonState } from './foldDaemonEvent.js';

function session(id: string, label: string): SessionInfo {
  return { id, label, createdAt: 1, lastUsedAt: 1, owned: false, paused: false, activity: 'idle', worker: 0, currentPageId: null, pages: [], epoch: 0, queued: 0, running: 0 };
}

function state(): DaemonState {
  const status: DaemonStatus = {
    protocolVersion: 1,
    version: '0.0.0',
    profile: 'default',
    pid: 1,
    socketPath: '/tmp/x.sock',
    startedAt: 0,
    state: 'ready',
    lastError: null,
    browser: { kind: 'launched', pid: 2, port: 3, browserUrl: 'http://127.0.0.1:3', userDataDir: '/tmp/u', headless: true, executable: '/usr/bin/chromium' },
    chrome: { pid: 2, port: 3, browserUrl: 'http://127.0.0.1:3', userDataDir: '/tmp/u', headless: true, executable: '/usr/bin/chromium' },
    upstream: { pid: 4 },
    workers: [],
    sessions: [session('sess-a', 'a')],
    queue: [],
    settings: { sessionTtlMs: 1, reapIntervalMs: 1, callTimeoutMs: 1, workers: 1, workerIdleMs: 1, toolTimeoutsMs: {} },
  };
  return { status, tabs: [] };
}

describe('foldDaemonEvent', () => {
  it('adds, replaces and removes sessions', () => {
    let s = foldDaemonEvent(state(), { type: 'session.updated', profile: 'default', session: session('sess-b', 'b') });
    expect(s.status.sessions.map((x) => x.id)).toEqual(['sess-a', 'sess-b']);
    s = foldDaemonEvent(s, { type: 'session.updated', profile: 'default', session: { ...session('sess-a', 'renamed'), activity: 'busy' } });
    expect(s.status.sessions.map((x) => [x.id, x.label, x.activity])).toEqual([
      ['sess-a', 'renamed', 'busy'],
      ['sess-b', 'b', 'idle'],
    ]);
    s = foldDaemonEvent(s, { type: 'session.closed', profile: 'default', sessionId: 'sess-a', reason: 'expired' });
    expect(s.status.sessions.map((x) => x.id)).toEqual(['sess-b']);
  });

  it('replaces queue, workers and tabs, and tracks the daemon state without mutating the input', () => {
    const before = state();
    const queue = [{ callId: 1, sessionId: 'sess-a', tool: 'click', worker: 0, state: 'running' as const, enqueuedAt: 1, startedAt: 2 }];
    let s = foldDaemonEvent(before, { type: 'queue', profile: 'default', queue });
    s = foldDaemonEvent(s, { type: 'daemon', profile: 'default', state: 'degraded', lastError: 'Chrome exited' });
    s = foldDaemonEvent(s, { type: 'tabs', profile: 'default', tabs: [{ pageId: 1, worker: 0, ownerPageId: null, url: 'about:blank', title: '', owner: null, origin: null, upstreamSelected: true, windowId: null }] });
    expect(s.status.queue).toEqual(queue);
    expect(s.status.state).toBe('degraded');
    expect(s.status.lastError).toBe('Chrome exited');
    expect(s.tabs).toHaveLength(1);
    expect(before.status.queue).toEqual([]);
    expect(before.status.state).toBe('ready');
  });

  it("keeps whether the browser answers, and the activity log's health, as the daemon's state events tell them", () => {
    let s = foldDaemonEvent(state(), { type: 'daemon', profile: 'default', state: 'ready', lastError: null, browserSilentSince: 1234 });
    expect(s.status.browserSilentSince).toBe(1234);
    const activityLog = { error: 'disk full', failingSince: 5, pending: 3, dropped: 0 };
    s = foldDaemonEvent(s, { type: 'daemon', profile: 'default', state: 'ready', lastError: null, browserSilentSince: null, activityLog });
    expect(s.status.browserSilentSince).toBeNull();
    expect(s.status.activityLog).toEqual(activityLog);
  });
});
