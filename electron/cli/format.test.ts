import { describe, expect, it } from 'vitest';
import type { TabInfo } from '../../shared/model.js';
import { ago, formatBrowserSilence, formatDownloads, formatTabs, formatWorkers, untilThen } from './format.js';

describe('times in words', () => {
  it('say how long until a moment, as ago says how long since one', () => {
    const now = 1_000_000;
    expect(untilThen(now + 4_200, now)).toBe('in 4s');
    expect(untilThen(now + 150_000, now)).toBe('in 3m');
    expect(untilThen(now + 2 * 3_600_000, now)).toBe('in 2h');
    // A moment that has come, or passed while the status travelled, is now, never a negative wait.
    expect(untilThen(now, now)).toBe('now');
    expect(untilThen(now - 5_000, now)).toBe('now');
    expect(ago(now - 4_200, now)).toBe('4s ago');
  });
});

describe('a browser that does not answer, in daemon status', () => {
  it('is a line saying since when, and nothing while it answers or the daemon does not tell', () => {
    const since = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(formatBrowserSilence(since, since + 25_400)).toEqual(['browser not answering for 25 s (since 2026-01-02T03:04:05.000Z): every call on this profile waits on it; if it does not come back, tabmux daemon stop closes it (logins stay)']);
    expect(formatBrowserSilence(null)).toEqual([]);
    expect(formatBrowserSilence(undefined)).toEqual([]);
  });
});

describe('tabs, in tabmux pages', () => {
  const tab: TabInfo = { pageId: 3, worker: 0, ownerPageId: 2, ownerWorker: 0, url: 'http://127.0.0.1:9/a', title: 'A', owner: 's-1', origin: 'created', upstreamSelected: false, windowId: 7 };

  it('name a tab whose page crashed, and how, below the table', () => {
    const text = formatTabs([tab, { ...tab, pageId: 4, crashed: 'oom' }]);
    expect(text.split('\n').at(-1)).toBe('page 4 crashed (oom): Chrome shows its crash page until the tab loads again');
    expect(text.match(/crashed/g)).toHaveLength(1);
    expect(formatTabs([tab])).not.toContain('crashed');
  });
});

describe('workers, in daemon status', () => {
  it("show a running worker's memory when the daemon reads it", () => {
    const worker = { index: 0, pid: 41, state: 'ready' as const, selectedPageId: 1, inFlight: 0, sessions: 1, lastError: null, sessionIds: ['sess-1'] };
    expect(formatWorkers([{ ...worker, residentMb: 183 }])).toBe('workers: #0 ready pid 41 (183 MiB), serves sess-1, idle, upstream selected page 1');
    expect(formatWorkers([worker])).toBe('workers: #0 ready pid 41, serves sess-1, idle, upstream selected page 1');
  });
});

describe('downloads, in daemon status', () => {
  const info = { mode: 'session' as const, maxBytes: 25 * 1024 * 1024, sessionFolder: '/f/<session>/downloads', unownedFolder: '/d' };

  it("says where each session's go and how much one download and one session may keep", () => {
    expect(formatDownloads({ ...info, sessionMaxBytes: 250 * 1024 * 1024, sessionMaxFiles: 100 })).toEqual([
      "downloads: each session's in /f/<session>/downloads, up to 25 MiB each, 250 MiB in 100 files a session; from tabs no session owns in /d",
    ]);
  });

  it('leaves out the session limits a daemon of an earlier version does not report', () => {
    expect(formatDownloads(info)).toEqual(["downloads: each session's in /f/<session>/downloads, up to 25 MiB each; from tabs no session owns in /d"]);
  });
});
