import { afterEach, beforeEach, vi } from 'vitest';

/**
 * Runs every test of the calling file on vitest's fake clock. Returns how a test lets time pass: the timers due by
 * then run, and the promises they settle with them.
 */
export function useFakeClock(): (ms: number) => Promise<void> {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  return async (ms) => {
    await vi.advanceTimersByTimeAsync(ms);
  };
}
