import { describe, expect, it } from 'vitest';
import { Backoff } from './Backoff.js';

describe('Backoff', () => {
  it('doubles the delay for each failure in a row up to the cap', () => {
    const backoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
    const delays = Array.from({ length: 9 }, (_, i) => backoff.fail(i));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(backoff.failures).toBe(9);
  });

  it('retries free failures at once, then backs off', () => {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 60_000, freeFailures: 2 });
    expect([backoff.fail(0), backoff.fail(1), backoff.fail(2), backoff.fail(3)]).toEqual([0, 0, 1000, 2000]);
  });

  it('says how long is left until the next attempt', () => {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 60_000 });
    expect(backoff.remainingMs(0)).toBe(0);
    backoff.fail(10_000);
    expect(backoff.remainingMs(10_400)).toBe(600);
    expect(backoff.remainingMs(11_000)).toBe(0);
  });

  it('starts a new streak after a quiet period, or on reset', () => {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 60_000, resetAfterMs: 60_000 });
    backoff.fail(0);
    backoff.fail(30_000);
    expect(backoff.fail(60_000)).toBe(4000);
    expect(backoff.fail(200_000)).toBe(1000);
    backoff.reset();
    expect(backoff.failures).toBe(0);
    expect(backoff.delayMs()).toBe(0);
    expect(backoff.fail(200_001)).toBe(1000);
  });
});
