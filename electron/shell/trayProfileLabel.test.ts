import { describe, expect, it } from 'vitest';
import type { ExternalBrowserInfo, SessionInfo } from '../../shared/model.js';
import type { ProfileView } from '../../shared/supervisor.js';
import { trayProfileLabel } from './trayProfileLabel.js';

/** Only the fields the label reads matter; the status carries just the browser report. */
function view(kind: ProfileView['kind'], state: ProfileView['state'], browser: ExternalBrowserInfo['state'] | null = null): ProfileView {
  const status = browser === null ? null : { ...STATUS, browser: { ...STATUS.browser, state: browser } };
  return { name: kind === 'external' ? 'mine' : 'work', kind, endpoint: null, state, lastError: null, unanswered: false, tabs: [], status };
}

const STATUS: NonNullable<ProfileView['status']> & { browser: ExternalBrowserInfo } = {
  protocolVersion: 1,
  version: '0.1.0',
  profile: 'mine',
  pid: 1,
  socketPath: '/run/mine.sock',
  startedAt: 0,
  state: 'ready',
  lastError: null,
  browser: { kind: 'external', state: 'connected', endpoint: 'http://127.0.0.1:9222', lastError: null, attempts: 0, nextRetryAt: null },
  chrome: { pid: null, port: null, browserUrl: null, userDataDir: null, headless: null, executable: null },
  upstream: { pid: null },
  workers: [],
  sessions: [],
  queue: [],
  settings: { sessionTtlMs: 1, reapIntervalMs: 1, callTimeoutMs: 1, workers: 1, workerIdleMs: 1, toolTimeoutsMs: {} },
};

describe('trayProfileLabel', () => {
  it('says running or stopped for a Chrome tabmux launches', () => {
    expect(trayProfileLabel(view('launched', 'ready'))).toBe('work: running');
    expect(trayProfileLabel(view('launched', 'stopped'))).toBe('work: stopped');
  });

  it('says a daemon that does not answer is not answering, whatever state it was last seen in', () => {
    expect(trayProfileLabel({ ...view('launched', 'ready'), unanswered: true })).toBe('work: not answering');
    expect(trayProfileLabel({ ...view('external', 'stopped'), unanswered: true })).toBe('mine: not answering');
  });

  it('says connected or disconnected for a browser the user runs', () => {
    expect(trayProfileLabel(view('external', 'stopped'))).toBe('mine: disconnected');
    expect(trayProfileLabel(view('external', 'starting'))).toBe('mine: connecting');
    expect(trayProfileLabel(view('external', 'ready', 'connected'))).toBe('mine: connected');
    expect(trayProfileLabel(view('external', 'restarting', 'disconnected'))).toBe('mine: disconnected, retrying');
    expect(trayProfileLabel(view('external', 'crashed'))).toBe('mine: failed');
  });

  it('says how many sessions wait for the person', () => {
    const session: SessionInfo = { id: 's', label: null, createdAt: 0, lastUsedAt: 0, owned: true, paused: false, activity: 'idle', worker: 0, currentPageId: null, pages: [], epoch: 0, queued: 0, running: 0 };
    const asking: SessionInfo = { ...session, waitingForHuman: { requestId: 'req-00000001', kind: 'question', since: 0 } };
    const waiting: ProfileView = { ...view('launched', 'ready'), status: { ...STATUS, sessions: [asking, session] } };
    expect(trayProfileLabel(waiting)).toBe('work: running — 1 waiting for you');
  });
});
