import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WriteHealth } from './WriteHealth.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

function health(): { health: WriteHealth; changes: (string | null)[]; retries: number[] } {
  const changes: (string | null)[] = [];
  const retries: number[] = [];
  let clock = 100;
  const writes = new WriteHealth(
    () => clock++,
    () => changes.push(writes.error?.message ?? null),
    () => retries.push(Date.now()),
  );
  return { health: writes, changes, retries };
}

describe('WriteHealth', () => {
  it('tells of a reason when it first appears, changes and goes away, and keeps since when', () => {
    const { health: writes, changes } = health();
    writes.report('disk full');
    writes.report('disk full');
    expect(writes.error).toEqual({ message: 'disk full', since: 100 });
    writes.report('stalled');
    expect(writes.error).toEqual({ message: 'stalled', since: 100 });
    writes.succeeded();
    writes.succeeded();
    expect(writes.error).toBeNull();
    expect(changes).toEqual(['disk full', 'stalled', null]);
  });

  it('retries once at a time, after a delay that doubles up to 2 s and starts over after a success', () => {
    const { health: writes, retries } = health();
    const start = Date.now();
    for (let n = 0; n < 7; n++) {
      writes.retryLater();
      writes.retryLater();
      vi.advanceTimersByTime(2_000);
    }
    expect(retries.map((at) => at - start)).toEqual([100, 2_200, 4_400, 6_800, 9_600, 12_000, 14_000]);
    writes.succeeded();
    writes.retryLater();
    vi.advanceTimersByTime(100);
    expect(retries).toHaveLength(8);
  });

  it('runs no retry once stopped', () => {
    const { health: writes, retries } = health();
    writes.retryLater();
    writes.stop();
    vi.advanceTimersByTime(5_000);
    expect(retries).toEqual([]);
  });
});
