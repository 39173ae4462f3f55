import { describe, expect, it } from 'vitest';
import { formatDuration } from './formatDuration.js';
import { formatRelativeTime } from './formatRelativeTime.js';
import { shortId } from './shortId.js';

describe('formatDuration', () => {
  it.each([
    [-5, '0.0 s'],
    [400, '0.4 s'],
    [9_949, '9.9 s'],
    [12_300, '12 s'],
    [185_000, '3 min 05 s'],
    [7_620_000, '2 h 07 min'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatRelativeTime', () => {
  it.each([
    [0, 'just now'],
    [4_999, 'just now'],
    [42_000, '42 s ago'],
    [5 * 60_000, '5 min ago'],
    [3 * 3_600_000, '3 h ago'],
    [72 * 3_600_000, '3 d ago'],
    [-10_000, 'just now'],
  ])('%d ms ago → %s', (ago, text) => {
    expect(formatRelativeTime(1_000_000_000 - ago, 1_000_000_000)).toBe(text);
  });
});

describe('shortId', () => {
  it('drops the prefix and keeps eight hex digits', () => {
    expect(shortId('sess-0123456789abcdef')).toBe('01234567');
    expect(shortId('custom')).toBe('custom');
  });
});
