import { describe, expect, it, vi } from 'vitest';
import { TabmuxError } from '../../shared/errors.js';
import type { SessionInfo } from '../../shared/model.js';
import { actionKey } from './actionKey.js';
import { createActions } from './createActions.js';
import { createTabmuxStore, type TabmuxStore } from './createTabmuxStore.js';
import { TestHost } from './testHost.js';
import { externalView, makeQueueEntry, makeSession, makeStatus, makeTab, makeView, stoppedView } from './testData.js';

const A = 'sess-aaaaaaaaaaaaaaaa';

function loadedStore(sessions: SessionInfo[] = [makeSession({ id: A })]): TabmuxStore {
  const store = createTabmuxStore();
  store.getState().loadSnapshot({
    profiles: [makeView('work', { status: makeStatus('work', { sessions, queue: [makeQueueEntry({ callId: 5, sessionId: A })] }) }), stoppedView('home')],
  });
  return store;
}

function sessionEvent(session: SessionInfo) {
  return { type: 'daemon', profile: 'work', event: { type: 'session.updated', profile: 'work', session } } as const;
}

describe('createActions', () => {
  it('keeps the button pending until the confirming event arrives', async () => {
    const store = loadedStore();
    const host = new TestHost(() => makeSession({ id: A, paused: true }));
    const actions = createActions(host, store);
    const done = actions.pauseSession('work', A);
    const key = actionKey('session', A, 'pause');
    expect(store.getState().pending[key]).toBe(true);
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    expect(host.calls[0]).toEqual({ method: 'supervisor/daemon', params: { profile: 'work', method: 'tabmux/session.pause', params: { session: A } } });
    await Promise.resolve();
    expect(store.getState().pending[key]).toBe(true);
    store.getState().receive(sessionEvent(makeSession({ id: A, paused: true })));
    await done;
    expect(store.getState().pending[key]).toBeUndefined();
  });

  it('ignores a second click while the first is pending', async () => {
    const store = loadedStore();
    const host = new TestHost(() => ({ closed: A, closedPages: [] }));
    const actions = createActions(host, store);
    const first = actions.closeSession('work', A);
    await actions.closeSession('work', A);
    store.getState().receive({ type: 'daemon', profile: 'work', event: { type: 'session.closed', profile: 'work', sessionId: A, reason: 'closed' } });
    await first;
    expect(host.calls).toHaveLength(1);
  });

  it('turns a server error into a toast with its message and clears pending', async () => {
    const store = loadedStore();
    const host = new TestHost(() => {
      throw new TabmuxError('page_conflict', 'page 4 belongs to session claude; release it there first');
    });
    await createActions(host, store).attachPage('work', A, 4);
    expect(store.getState().toasts.map((toast) => toast.message)).toEqual(['page 4 belongs to session claude; release it there first']);
    expect(store.getState().pending).toEqual({});
  });

  it('clears pending after the timeout when no event confirms', async () => {
    vi.useFakeTimers();
    try {
      const store = loadedStore();
      const host = new TestHost(() => makeSession({ id: A }));
      const done = createActions(host, store, { confirmTimeoutMs: 500 }).pauseSession('work', A);
      await vi.advanceTimersByTimeAsync(600);
      await done;
      expect(store.getState().pending).toEqual({});
      expect(store.getState().toasts).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits for a created session to appear, without an empty label', async () => {
    const store = loadedStore([]);
    const created = makeSession({ id: A });
    const host = new TestHost(() => created);
    const done = createActions(host, store).createSession('work', '  ');
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    expect(host.calls[0]?.params).toEqual({ profile: 'work', method: 'tabmux/session.create', params: {} });
    expect(store.getState().pending[actionKey('profile', 'work', 'session.create')]).toBe(true);
    store.getState().receive(sessionEvent(created));
    await done;
    expect(store.getState().pending).toEqual({});
  });

  it('sends a trimmed label', async () => {
    const store = loadedStore([]);
    const host = new TestHost(() => makeSession({ id: A, label: 'review' }));
    const done = createActions(host, store).createSession('work', ' review ');
    store.getState().receive(sessionEvent(makeSession({ id: A, label: 'review' })));
    await done;
    expect(host.calls[0]?.params).toEqual({ profile: 'work', method: 'tabmux/session.create', params: { label: 'review' } });
  });

  it('waits for an opened tab to be listed', async () => {
    const store = loadedStore();
    const host = new TestHost(() => ({ tab: makeTab({ pageId: 8 }) }));
    const done = createActions(host, store).openTab('work', 'https://login.test/');
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    expect(store.getState().pending[actionKey('profile', 'work', 'tabs.open')]).toBe(true);
    store.getState().receive({ type: 'daemon', profile: 'work', event: { type: 'tabs', profile: 'work', tabs: [makeTab({ pageId: 8 })] } });
    await done;
    expect(store.getState().pending).toEqual({});
  });

  it('releases a page once the session no longer lists it', async () => {
    const page = { pageId: 4, url: 'https://a.test/', title: 'A', origin: 'attached', current: true } as const;
    const store = loadedStore([makeSession({ id: A, pages: [page], currentPageId: 4 })]);
    const host = new TestHost(() => ({ session: A, pageId: null, url: null, pages: [] }));
    const done = createActions(host, store).releasePage('work', A, 4);
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    expect(store.getState().pending[actionKey('page', 4, 'release')]).toBe(true);
    store.getState().receive(sessionEvent(makeSession({ id: A, pages: [], currentPageId: null })));
    await done;
    expect(store.getState().pending).toEqual({});
  });

  it('tells the user when a call could not be cancelled', async () => {
    const store = loadedStore();
    const host = new TestHost(() => ({ cancelled: false }));
    await createActions(host, store).cancelCall('work', 5);
    expect(store.getState().toasts[0]?.kind).toBe('info');
    expect(store.getState().pending).toEqual({});
  });

  it('starts a profile and reports a crash with its error', async () => {
    const store = loadedStore();
    const host = new TestHost(() => ({ ...stoppedView('home'), state: 'starting' }));
    const done = createActions(host, store).startProfile('home');
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    expect(host.calls[0]).toEqual({ method: 'supervisor/profile.start', params: { profile: 'home' } });
    store.getState().receive({ type: 'profile', profile: { ...stoppedView('home'), state: 'crashed', lastError: 'Chrome is already running for this profile' } });
    await done;
    expect(store.getState().toasts[0]?.message).toBe('Profile home crashed: Chrome is already running for this profile');
  });

  it('stops a daemon that does not answer, and waits until nothing holds the profile', async () => {
    const store = loadedStore();
    const stuck = { ...stoppedView('home'), unanswered: true, lastError: 'the daemon (pid 7) does not answer: its process is stopped or stuck; Stop ends it' };
    store.getState().receive({ type: 'profile', profile: stuck });
    const host = new TestHost(() => stuck);
    const key = actionKey('profile', 'home', 'stop');
    const done = createActions(host, store).stopProfile('home');
    await vi.waitFor(() => expect(host.calls).toEqual([{ method: 'supervisor/profile.stop', params: { profile: 'home' } }]));
    await Promise.resolve();
    expect(store.getState().pending[key]).toBe(true);
    store.getState().receive({ type: 'profile', profile: stoppedView('home') });
    await done;
    expect(store.getState().pending).toEqual({});
    expect(store.getState().toasts).toEqual([]);
  });

  it('waits for a restarted daemon with a new pid', async () => {
    const store = loadedStore();
    const host = new TestHost(() => makeView('work', { state: 'restarting', status: null }));
    const key = actionKey('profile', 'work', 'restart');
    const done = createActions(host, store).restartProfile('work');
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    store.getState().receive({ type: 'profile', profile: makeView('work') });
    await Promise.resolve();
    expect(store.getState().pending[key]).toBe(true);
    store.getState().receive({ type: 'profile', profile: makeView('work', { status: makeStatus('work', { pid: 101 }) }) });
    await done;
    expect(store.getState().pending).toEqual({});
  });
});

describe('addExternalProfile', () => {
  const ADD = actionKey('profiles', 'addExternal');

  it('sends trimmed input, waits for the profile to appear and selects it', async () => {
    const store = loadedStore();
    const added = externalView('mine', 'stopped', null);
    const host = new TestHost(() => added);
    const done = createActions(host, store).addExternalProfile({ name: ' mine ', browserUrl: ' http://127.0.0.1:9333 ', isolation: 'window' });
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    expect(host.calls[0]).toEqual({ method: 'supervisor/profile.addExternal', params: { name: 'mine', browserUrl: 'http://127.0.0.1:9333', isolation: 'window' } });
    await Promise.resolve();
    expect(store.getState().pending[ADD]).toBe(true);
    store.getState().receive({ type: 'profile', profile: added });
    expect(await done).toBeNull();
    expect(store.getState().selectedProfile).toBe('mine');
    expect(store.getState().profiles['mine']).toMatchObject({ kind: 'external', endpoint: 'http://127.0.0.1:9333', state: 'stopped' });
    expect(store.getState().pending).toEqual({});
  });

  it('leaves the default isolation out, as profile add does', async () => {
    const store = loadedStore();
    const host = new TestHost(() => externalView('mine', 'stopped', null));
    store.getState().receive({ type: 'profile', profile: externalView('mine', 'stopped', null) });
    await createActions(host, store).addExternalProfile({ name: 'mine', browserUrl: 'http://127.0.0.1:9333', isolation: 'tab' });
    expect(host.calls[0]?.params).toEqual({ name: 'mine', browserUrl: 'http://127.0.0.1:9333' });
  });

  it("hands the server's refusal back to the form instead of a toast", async () => {
    const store = loadedStore();
    const host = new TestHost(() => {
      throw new TabmuxError('profile_exists', 'profile "work" already exists; remove it first or pick another name');
    });
    const refused = await createActions(host, store).addExternalProfile({ name: 'work', browserUrl: 'http://127.0.0.1:9333', isolation: 'tab' });
    expect(refused).toBe('profile "work" already exists; remove it first or pick another name');
    expect(store.getState().toasts).toEqual([]);
    expect(store.getState().pending).toEqual({});
    expect(store.getState().selectedProfile).toBeNull();
  });

  it('says a failed connect could not connect, not that the profile crashed', async () => {
    const store = loadedStore();
    store.getState().receive({ type: 'profile', profile: externalView('mine', 'stopped', null) });
    const host = new TestHost(() => ({ ...externalView('mine', 'starting', null) }));
    const done = createActions(host, store).startProfile('mine');
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    store.getState().receive({ type: 'profile', profile: { ...externalView('mine', 'crashed', null), lastError: 'the browser is not reachable' } });
    await done;
    expect(store.getState().toasts[0]?.message).toBe('Could not connect mine: the browser is not reachable');
  });
});

describe('store ui slice', () => {
  it('dedupes toasts by message and keeps the newest four', () => {
    const store = createTabmuxStore();
    for (const message of ['a', 'b', 'a', 'c', 'd', 'e']) {
      store.getState().pushToast('error', message);
    }
    expect(store.getState().toasts.map((toast) => toast.message)).toEqual(['a', 'c', 'd', 'e']);
    const first = store.getState().toasts[0];
    if (first) {
      store.getState().dismissToast(first.id);
    }
    expect(store.getState().toasts.map((toast) => toast.message)).toEqual(['c', 'd', 'e']);
  });

  it('keeps the pending map reference when nothing changes', () => {
    const store = createTabmuxStore();
    const before = store.getState().pending;
    store.getState().setPending('x', false);
    expect(store.getState().pending).toBe(before);
  });
});
