import { describe, expect, it } from 'vitest';
import { ACTIVITY_FORMAT_VERSION, type ActivityEntry } from '../../shared/activity.js';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import { appendActivity, loadingTimeline, TIMELINE_LIMIT, timelineLoaded } from './Timeline.js';
import { timelineWindow } from './timelineWindow.js';

function entry(id: string, at: number, session = 'sess-000000000000000a'): ActivityEntry {
  return { v: ACTIVITY_FORMAT_VERSION, id, session, label: null, tool: 'click', args: {}, redacted: [], at, durationMs: 1, outcome: 'ok', error: null, summary: '', pageBefore: null, pageAfter: null, opened: [] };
}

function pushed(value: ActivityEntry, profile = 'default'): SupervisorEvent {
  return { type: 'daemon', profile, event: { type: 'activity', profile, entry: value } };
}

describe('Timeline', () => {
  it('takes pushed entries of its own session and profile only', () => {
    const open = loadingTimeline('default', 'sess-000000000000000a');
    const mine = appendActivity(open, pushed(entry('a', 1)));
    expect(mine?.entries.map((e) => e.id)).toEqual(['a']);
    expect(appendActivity(open, pushed(entry('b', 1, 'sess-000000000000000b')))).toBe(open);
    expect(appendActivity(open, pushed(entry('c', 1), 'other'))).toBe(open);
    expect(appendActivity(null, pushed(entry('d', 1)))).toBeNull();
  });

  it('merges the loaded log with what was pushed while it loaded, each entry once', () => {
    let open = loadingTimeline('default', 'sess-000000000000000a');
    open = appendActivity(open, pushed(entry('2', 20))) ?? open;
    open = appendActivity(open, pushed(entry('3', 30))) ?? open;
    const ready = timelineLoaded(open, [entry('1', 10), entry('2', 20)], false);
    expect(ready.state).toBe('ready');
    expect(ready.entries.map((e) => e.id)).toEqual(['1', '2', '3']);
  });

  it('keeps at most TIMELINE_LIMIT entries, the newest', () => {
    const many = Array.from({ length: TIMELINE_LIMIT + 5 }, (_, n) => entry(String(n), n));
    const ready = timelineLoaded(loadingTimeline('default', 'sess-000000000000000a'), many, false);
    expect(ready.entries).toHaveLength(TIMELINE_LIMIT);
    expect(ready.entries[0]?.id).toBe('5');
    expect(ready.truncated).toBe(true);
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
