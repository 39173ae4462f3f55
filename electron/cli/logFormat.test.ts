import { describe, expect, it } from 'vitest';
import { ACTIVITY_FORMAT_VERSION, type ActivityEntry } from '../../shared/activity.js';
import { formatActivityLine } from './formatActivity.js';
import { parseSince } from './parseSince.js';

describe('parseSince', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it('reads durations back from now and ISO times', () => {
    expect(parseSince('90s', now)).toBe(now - 90_000);
    expect(parseSince('10m', now)).toBe(now - 600_000);
    expect(parseSince('2h', now)).toBe(now - 7_200_000);
    expect(parseSince('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseSince('2026-11-23T10:00:00Z', now)).toBe(Date.parse('2026-11-23T10:00:00Z'));
  });
  it('refuses anything else with the forms it takes', () => {
    expect(() => parseSince('yesterday', now)).toThrow(/ISO time .* 10m/);
    expect(() => parseSince('10 minutes', now)).toThrow(/--since/);
  });
});

describe('formatActivityLine', () => {
  const entry: ActivityEntry = {
    v: ACTIVITY_FORMAT_VERSION,
    id: 'x-1',
    session: 'sess-00000000000000aa',
    label: 'bot',
    tool: 'click',
    args: { uid: 'u:1:2:3' },
    redacted: [],
    at: Date.parse('2026-11-23T12:00:00Z'),
    durationMs: 42,
    outcome: 'rejected',
    error: { code: 'stale_token', message: 'uid token is from an older snapshot\nsecond line' },
    summary: '',
    pageBefore: null,
    pageAfter: { pageId: 1, url: 'https://a.example/' },
    opened: [{ pageId: 2, url: 'https://popup.example/' }],
  };
  it('puts one call on one line', () => {
    expect(formatActivityLine(entry)).toBe(
      '2026-11-23T12:00:00.000Z  sess-00000000000000aa (bot)  click  rejected:stale_token  42ms  {"uid":"u:1:2:3"}  @ https://a.example/  +page 2 https://popup.example/  — uid token is from an older snapshot⏎second line',
    );
  });
});
