import { describe, expect, it } from 'vitest';
import { ACTIVITY_FORMAT_VERSION, type ActivityEntry } from '../../shared/activity.js';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import { appendActivity, historyChoices, historyRows, loadingTimeline, NO_HISTORY_FILTER, TIMELINE_LIMIT, timelineLoaded } from './Timeline.js';
import { timelineWindow } from './timelineWindow.js';

function entry(id: string, at: number, session = 'sess-000000000000000a', more: Partial<ActivityEntry> = {}): ActivityEntry {
  return { v: ACTIVITY_FORMAT_VERSION, id, session, label: null, tool: 'click', args: {}, redacted: [], at, durationMs: 1, outcome: 'ok', error: null, summary: '', pageBefore: null, pageAfter: null, opened: [], ...more };
}

function pushed(value: ActivityEntry, profile = 'default'): SupervisorEvent {
  return { type: 'daemon', profile, event: { type: 'activity', profile, entry: value } };
}

describe('Timeline', () => {
  it("takes pushed entries of every session of its own profile only", () => {
    const open = loadingTimeline('default');
    const mine = appendActivity(open, pushed(entry('a', 1)));
    expect(mine?.entries.map((e) => e.id)).toEqual(['a']);
    expect(appendActivity(mine, pushed(entry('b', 2, 'sess-000000000000000b')))?.entries.map((e) => e.id)).toEqual(['a', 'b']);
    expect(appendActivity(open, pushed(entry('c', 1), 'other'))).toBe(open);
    expect(appendActivity(null, pushed(entry('d', 1)))).toBeNull();
  });

  it('merges the loaded log with what was pushed while it loaded, each entry once', () => {
    let open = loadingTimeline('default');
    open = appendActivity(open, pushed(entry('2', 20))) ?? open;
    open = appendActivity(open, pushed(entry('3', 30))) ?? open;
    const ready = timelineLoaded(open, [entry('1', 10), entry('2', 20)], false);
    expect(ready.state).toBe('ready');
    expect(ready.entries.map((e) => e.id)).toEqual(['1', '2', '3']);
  });

  it('keeps at most TIMELINE_LIMIT entries, the newest', () => {
    const many = Array.from({ length: TIMELINE_LIMIT + 5 }, (_, n) => entry(String(n), n));
    const ready = timelineLoaded(loadingTimeline('default'), many, false);
    expect(ready.entries).toHaveLength(TIMELINE_LIMIT);
    expect(ready.entries[0]?.id).toBe('5');
    expect(ready.truncated).toBe(true);
  });
});

describe('historyRows', () => {
  const entries = [
    entry('1', 10, 'sess-000000000000000a', { tool: 'navigate_page' }),
    entry('2', 20, 'sess-000000000000000b', { tool: 'click', outcome: 'rejected', label: 'writer' }),
    entry('3', 30, 'sess-000000000000000a', { tool: 'click', outcome: 'tool_error' }),
    entry('4', 40, 'sess-000000000000000b', { tool: 'navigate_page', label: 'writer' }),
  ];

  it('shows the newest first', () => {
    expect(historyRows(entries, NO_HISTORY_FILTER).map((e) => e.id)).toEqual(['4', '3', '2', '1']);
  });

  it('filters by session, tool and outcome, together', () => {
    expect(historyRows(entries, { ...NO_HISTORY_FILTER, session: 'sess-000000000000000a' }).map((e) => e.id)).toEqual(['3', '1']);
    expect(historyRows(entries, { ...NO_HISTORY_FILTER, tool: 'click' }).map((e) => e.id)).toEqual(['3', '2']);
    expect(historyRows(entries, { ...NO_HISTORY_FILTER, outcome: 'rejected' }).map((e) => e.id)).toEqual(['2']);
    expect(historyRows(entries, { session: 'sess-000000000000000b', tool: 'navigate_page', outcome: 'ok' }).map((e) => e.id)).toEqual(['4']);
    expect(historyRows(entries, { session: 'sess-000000000000000b', tool: 'click', outcome: 'ok' })).toEqual([]);
  });

  it('offers the sessions (by label) and tools the history holds, and the chosen ones even when absent', () => {
    const choices = historyChoices(entries, { ...NO_HISTORY_FILTER, session: 'sess-00000000000000ff', tool: 'take_snapshot' });
    expect(choices.tools).toEqual(['click', 'navigate_page', 'take_snapshot']);
    expect(choices.sessions.map((choice) => choice.value)).toEqual(expect.arrayContaining(['sess-000000000000000a', 'sess-000000000000000b', 'sess-00000000000000ff']));
    expect(choices.sessions.find((choice) => choice.value === 'sess-000000000000000b')?.label).toBe('writer');
  });
});

describe('timelineWindow', () => {
  it('draws the rows in view and a margin around them', () => {
    expect(timelineWindow(10_000, 30, 0, 420)).toEqual({ first: 0, last: 24 });
    expect(timelineWindow(10_000, 30, 3000, 420)).toEqual({ first: 90, last: 124 });
    expect(timelineWindow(10_000, 30, 299_580, 420)).toEqual({ first: 9976, last: 10_000 });
    expect(timelineWindow(0, 30, 0, 420)).toEqual({ first: 0, last: 0 });
  });
});
