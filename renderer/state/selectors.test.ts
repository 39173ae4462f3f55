import { describe, expect, it } from 'vitest';
import { debugRows } from './debugRows.js';
import { profileList, selectSelectedProfile } from './selectProfiles.js';
import { queueRows } from './queueRows.js';
import { fromSnapshot } from './ServerState.js';
import { selectSessionRows, sessionRows } from './sessionRows.js';
import { selectTabRows, tabGroups, tabRows } from './tabRows.js';
import { makeQueueEntry, makeSession, makeStatus, makeTab, makeView, makeWorker, stoppedView } from './testData.js';

const A = 'sess-aaaaaaaaaaaaaaaa';
const B = 'sess-bbbbbbbbbbbbbbbb';
const C = 'sess-cccccccccccccccc';

describe('profile selectors', () => {
  const state = fromSnapshot({ profiles: [stoppedView('zeta'), makeView('work'), stoppedView('alpha')] });

  it('lists profiles alphabetically', () => {
    expect(profileList(state.profiles).map((entry) => entry.name)).toEqual(['alpha', 'work', 'zeta']);
  });

  it('keeps the chosen profile while it exists', () => {
    expect(selectSelectedProfile({ profiles: state.profiles, selectedProfile: 'zeta' })).toBe('zeta');
  });

  it('falls back to the first ready profile, then the first profile, then none', () => {
    expect(selectSelectedProfile({ profiles: state.profiles, selectedProfile: 'gone' })).toBe('work');
    expect(selectSelectedProfile({ profiles: state.profiles, selectedProfile: null })).toBe('work');
    const stopped = fromSnapshot({ profiles: [stoppedView('b'), stoppedView('a')] });
    expect(selectSelectedProfile({ profiles: stopped.profiles, selectedProfile: null })).toBe('a');
    expect(selectSelectedProfile({ profiles: {}, selectedProfile: null })).toBeNull();
  });
});

describe('sessionRows', () => {
  const sessions = {
    [B]: makeSession({ id: B, createdAt: 2_000, label: 'cursor', activity: 'busy', queued: 2, running: 1 }),
    [A]: makeSession({
      id: A,
      createdAt: 1_000,
      currentPageId: 3,
      pages: [
        { pageId: 2, url: 'https://a.test/', title: 'A', origin: 'created', current: false },
        { pageId: 3, url: 'https://b.test/', title: 'B', origin: 'attached', current: true },
      ],
    }),
    [C]: makeSession({ id: C, createdAt: 3_000, paused: true, activity: 'busy' }),
  };

  it('orders oldest first and derives the display fields', () => {
    const rows = sessionRows(sessions);
    expect(rows.map((row) => row.id)).toEqual([A, B, C]);
    expect(rows[0]).toMatchObject({ shortId: 'aaaaaaaa', name: 'aaaaaaaa', pageCount: 2, currentPage: { pageId: 3, title: 'B' } });
    expect(rows[1]).toMatchObject({ name: 'cursor', activity: 'busy', queued: 2, running: 1, currentPage: null });
  });

  it('shows a paused session as paused whatever it was doing', () => {
    expect(sessionRows(sessions)[2]?.activity).toBe('paused');
  });

  it('handles a profile without sessions', () => {
    expect(sessionRows(undefined)).toEqual([]);
    expect(selectSessionRows(fromSnapshot({ profiles: [] }), 'none')).toEqual([]);
  });
});

describe('tabRows', () => {
  const sessions = {
    [A]: makeSession({ id: A, label: 'claude', worker: 0 }),
    [B]: makeSession({ id: B, worker: 1, createdAt: 500 }),
  };
  const tabs = [
    makeTab({ pageId: 9, worker: 1, owner: B }),
    makeTab({ pageId: 4, worker: 0, owner: A, origin: 'created', upstreamSelected: true }),
    makeTab({ pageId: 2, worker: 0, title: 'Login', url: 'https://login.test/' }),
    makeTab({ pageId: 5, worker: 0, owner: C }),
  ];

  it('orders by worker then page and names the owner', () => {
    const rows = tabRows(tabs, sessions);
    expect(rows.map((row) => row.key)).toEqual(['0:2', '0:4', '0:5', '1:9']);
    expect(rows[0]?.owner).toBeNull();
    expect(rows[1]?.owner).toEqual({ id: A, name: 'claude' });
    expect(rows[3]?.owner).toEqual({ id: B, name: 'bbbbbbbb' });
  });

  it("carries how a tab's page process ended, and null while it runs", () => {
    const rows = tabRows([makeTab({ pageId: 3, crashed: 'oom' }), makeTab({ pageId: 4 })], sessions);
    expect(rows.map((row) => row.crashed)).toEqual(['oom', null]);
  });

  it('groups tabs by browser window, naming whose tabs each holds, unknown windows last', () => {
    const rows = tabRows(
      [
        makeTab({ pageId: 1, windowId: 10 }),
        makeTab({ pageId: 2, windowId: 20, owner: A }),
        makeTab({ pageId: 3, windowId: null }),
        makeTab({ pageId: 4, windowId: 20, owner: A }),
        makeTab({ pageId: 5, windowId: 10, owner: B }),
      ],
      sessions,
    );
    const groups = tabGroups(rows);
    expect(groups.map((group) => [group.title, group.rows.map((row) => row.pageId)])).toEqual([
      ['Window 10 · unowned, bbbbbbbb', [1, 5]],
      ['Window 20 · claude', [2, 4]],
      ['Window unknown · unowned', [3]],
    ]);
    expect(new Set(groups.map((group) => group.key)).size).toBe(3);
  });

  it("names the worker that runs an owned tab's calls, the owner's, and none for an unowned tab", () => {
    const rows = tabRows([makeTab({ pageId: 3, worker: 0, owner: B, ownerWorker: 1 }), makeTab({ pageId: 4, worker: 0 })], sessions);
    expect(rows.map((row) => [row.pageId, row.worker, row.ownerWorker])).toEqual([
      [3, 0, 1],
      [4, 0, null],
    ]);
  });

  it('carries the id the owner knows the tab by, for release', () => {
    const rows = tabRows([makeTab({ pageId: 3, worker: 0, owner: B, ownerPageId: 7 })], sessions);
    expect(rows[0]).toMatchObject({ pageId: 3, ownerPageId: 7 });
  });

  it('names an owner the sessions slice does not know yet by its short id', () => {
    expect(tabRows(tabs, sessions)[2]?.owner).toEqual({ id: C, name: 'cccccccc' });
  });

  it('offers every session for attach, whatever its worker', () => {
    const rows = tabRows(tabs, sessions);
    // Oldest session first.
    expect(rows[0]?.attachTo).toEqual([
      { id: B, name: 'bbbbbbbb' },
      { id: A, name: 'claude' },
    ]);
  });

  it('does not reorder its input', () => {
    const input = [...tabs];
    tabRows(input, sessions);
    expect(input).toEqual(tabs);
  });

  it('handles a profile without tabs', () => {
    expect(selectTabRows(fromSnapshot({ profiles: [] }), 'none')).toEqual([]);
  });
});

describe('queueRows', () => {
  const sessions = { [A]: makeSession({ id: A, label: 'claude' }) };
  const queue = [
    makeQueueEntry({ callId: 1, sessionId: A, state: 'running', enqueuedAt: 10_000, startedAt: 12_500, tool: 'click' }),
    makeQueueEntry({ callId: 2, sessionId: B, enqueuedAt: 13_000 }),
  ];

  it('keeps the daemon order and computes live times from now', () => {
    const rows = queueRows(queue, sessions, 20_000);
    expect(rows.map((row) => row.callId)).toEqual([1, 2]);
    expect(rows[0]).toMatchObject({ sessionName: 'claude', tool: 'click', state: 'running', waitedMs: 2_500, runningMs: 7_500 });
    expect(rows[1]).toMatchObject({ sessionName: 'bbbbbbbb', state: 'queued', waitedMs: 7_000, runningMs: null });
  });

  it('ticks: a later now grows the open timers only', () => {
    const rows = queueRows(queue, sessions, 21_000);
    expect(rows[0]?.waitedMs).toBe(2_500);
    expect(rows[0]?.runningMs).toBe(8_500);
    expect(rows[1]?.waitedMs).toBe(8_000);
  });

  it('never shows negative times when clocks disagree', () => {
    const rows = queueRows([makeQueueEntry({ callId: 3, sessionId: A, enqueuedAt: 30_000 })], sessions, 20_000);
    expect(rows[0]?.waitedMs).toBe(0);
  });

  it('handles a missing queue', () => {
    expect(queueRows(undefined, undefined, 0)).toEqual([]);
  });
});

describe('debugRows', () => {
  it('puts each worker selected page next to its sessions current pages', () => {
    const state = fromSnapshot({
      profiles: [
        makeView('work', {
          status: makeStatus('work', {
            workers: [
              makeWorker({ index: 1, selectedPageId: 7, busy: { callId: 9, sessionId: C, tool: 'wait_for', since: 1_000 } }),
              makeWorker({ index: 0, selectedPageId: 3 }),
              makeWorker({ index: 2, pid: null, state: 'stopped' }),
            ],
            sessions: [
              makeSession({
                id: A,
                label: 'claude',
                currentPageId: 3,
                pages: [{ pageId: 3, url: 'https://a.test/', title: 'Alpha', origin: 'created', current: true }],
              }),
              makeSession({ id: B, currentPageId: 4, createdAt: 2_000 }),
              makeSession({ id: C, worker: 1, currentPageId: null }),
            ],
          }),
          tabs: [makeTab({ pageId: 3, title: 'Alpha' }), makeTab({ pageId: 4, title: 'Beta' }), makeTab({ pageId: 7, worker: 1, title: 'Gamma' })],
        }),
      ],
    });
    const rows = debugRows(state.profiles['work']?.workers ?? [], state.sessions['work'], state.tabs['work']);
    // Worker 2 neither runs nor serves anyone: no card for it.
    expect(rows.map((row) => row.index)).toEqual([0, 1]);
    expect(rows[1]?.busy).toEqual({ sessionName: 'cccccccc', tool: 'wait_for', since: 1_000 });
    expect(rows[0]?.busy).toBeNull();
    expect(rows[0]).toMatchObject({ selectedPageId: 3, selectedTitle: 'Alpha' });
    expect(rows[0]?.sessions).toEqual([
      { id: A, name: 'claude', currentPageId: 3, currentTitle: 'Alpha', matchesUpstream: true, differs: false },
      { id: B, name: 'bbbbbbbb', currentPageId: 4, currentTitle: 'Beta', matchesUpstream: false, differs: true },
    ]);
    expect(rows[1]?.selectedTitle).toBe('Gamma');
    expect(rows[1]?.sessions).toEqual([{ id: C, name: 'cccccccc', currentPageId: null, currentTitle: null, matchesUpstream: false, differs: false }]);
  });
});
