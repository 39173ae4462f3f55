import type { DaemonStatus, ExternalBrowserInfo, QueueEntry, SessionInfo, TabInfo, WorkerInfo } from '../../shared/model.js';
import type { ProfileView } from '../../shared/supervisor.js';

/** Builders for unit tests: complete model objects with overridable fields. */

export function makeSession(overrides: Partial<SessionInfo> & { id: string }): SessionInfo {
  return {
    label: null,
    createdAt: 1_000,
    lastUsedAt: 1_000,
    owned: true,
    paused: false,
    activity: 'idle',
    worker: 0,
    currentPageId: null,
    pages: [],
    epoch: 0,
    queued: 0,
    running: 0,
    ...overrides,
  };
}

export function makeWorker(overrides: Partial<WorkerInfo> = {}): WorkerInfo {
  return { index: 0, pid: 200, state: 'ready', selectedPageId: null, inFlight: 0, sessions: 0, lastError: null, ...overrides };
}

export function makeTab(overrides: Partial<TabInfo> & { pageId: number }): TabInfo {
  return { worker: 0, ownerPageId: null, url: 'about:blank', title: '', owner: null, origin: null, upstreamSelected: false, windowId: null, ...overrides };
}

export function makeQueueEntry(overrides: Partial<QueueEntry> & { callId: number; sessionId: string }): QueueEntry {
  return { tool: 'take_snapshot', worker: 0, state: 'queued', enqueuedAt: 10_000, startedAt: null, ...overrides };
}

export function makeStatus(profile: string, overrides: Partial<DaemonStatus> = {}): DaemonStatus {
  return {
    protocolVersion: 1,
    version: '0.1.0',
    profile,
    pid: 100,
    socketPath: `/run/tabmux/${profile}.sock`,
    startedAt: 500,
    state: 'ready',
    lastError: null,
    browser: { kind: 'launched', pid: 300, port: 9222, browserUrl: 'http://127.0.0.1:9222', userDataDir: `/data/${profile}`, headless: true, executable: '/usr/bin/chromium' },
    chrome: { pid: 300, port: 9222, browserUrl: 'http://127.0.0.1:9222', userDataDir: `/data/${profile}`, headless: true, executable: '/usr/bin/chromium' },
    upstream: { pid: 200 },
    workers: [makeWorker()],
    sessions: [],
    queue: [],
    settings: { sessionTtlMs: 1_800_000, reapIntervalMs: 60_000, callTimeoutMs: 120_000, workers: 1, workerIdleMs: 300_000, toolTimeoutsMs: {} },
    ...overrides,
  };
}

export function makeView(name: string, overrides: Partial<ProfileView> = {}): ProfileView {
  return { name, kind: 'launched', endpoint: null, state: 'ready', lastError: null, unanswered: false, status: makeStatus(name), tabs: [], ...overrides };
}

export function stoppedView(name: string): ProfileView {
  return { name, kind: 'launched', endpoint: null, state: 'stopped', lastError: null, unanswered: false, status: null, tabs: [] };
}

export const EXTERNAL_ENDPOINT = 'http://127.0.0.1:9333';

/** An external profile whose daemon runs, with the browser's connection as given (`null`: no daemon). */
export function externalView(name: string, state: ProfileView['state'], browser: Partial<ExternalBrowserInfo> | null): ProfileView {
  const info: ExternalBrowserInfo = { kind: 'external', state: 'connected', endpoint: EXTERNAL_ENDPOINT, lastError: null, attempts: 0, nextRetryAt: null, ...browser };
  const chrome = { pid: null, port: null, browserUrl: null, userDataDir: null, headless: null, executable: null };
  const status = browser === null ? null : makeStatus(name, { browser: info, chrome });
  return { name, kind: 'external', endpoint: EXTERNAL_ENDPOINT, state, lastError: null, unanswered: false, status, tabs: [] };
}
