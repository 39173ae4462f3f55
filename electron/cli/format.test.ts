import { describe, expect, it } from 'vitest';
import { ago, untilThen } from './format.js';

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
