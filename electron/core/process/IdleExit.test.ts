import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdleExit } from './IdleExit.js';

describe('IdleExit', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function clock(): { idle: IdleExit; use: { count: number }; exits: () => number } {
    const use = { count: 0 };
    let exits = 0;
    const idle = new IdleExit({ afterMs: 1000, inUse: () => use.count > 0, exit: () => (exits += 1), now: () => Date.now() });
    return { idle, use, exits: () => exits };
  }

  it('exits once nothing has been in use for the whole idle time', () => {
    const { idle, exits } = clock();
    idle.changed();
    expect(idle.idleSince).toBe(Date.now());
    vi.advanceTimersByTime(999);
    expect(exits()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(exits()).toBe(1);
    idle.changed();
    vi.advanceTimersByTime(5000);
    expect(exits()).toBe(1);
  });

  it('stands still while something is in use, and starts from zero when it is let go', () => {
    const { idle, use, exits } = clock();
    idle.changed();
    vi.advanceTimersByTime(900);
    use.count = 1;
    idle.changed();
    expect(idle.idleSince).toBeNull();
    vi.advanceTimersByTime(5000);
    expect(exits()).toBe(0);
    use.count = 0;
    idle.changed();
    vi.advanceTimersByTime(900);
    expect(exits()).toBe(0);
    vi.advanceTimersByTime(100);
    expect(exits()).toBe(1);
  });

  it('looks again at the end, for a change not reported yet', () => {
    const { idle, use, exits } = clock();
    idle.changed();
    use.count = 1;
    vi.advanceTimersByTime(1000);
    expect(exits()).toBe(0);
    expect(idle.idleSince).toBeNull();
    use.count = 0;
    idle.changed();
    vi.advanceTimersByTime(1000);
    expect(exits()).toBe(1);
  });

  it('waits out an idle time longer than a timer takes', () => {
    const use = { count: 0 };
    let exits = 0;
    const days = 30 * 24 * 60 * 60 * 1000;
    const idle = new IdleExit({ afterMs: days, inUse: () => use.count > 0, exit: () => (exits += 1), now: () => Date.now() });
    idle.changed();
    vi.advanceTimersByTime(1000);
    expect(exits).toBe(0);
    vi.advanceTimersByTime(days - 2000);
    expect(exits).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(exits).toBe(1);
  });

  it('puts the exit off while a connection has not said what it is, without starting the clock again', () => {
    let opening = 1;
    let exits = 0;
    const idle = new IdleExit({ afterMs: 1000, inUse: () => false, holdsOff: () => opening > 0, exit: () => (exits += 1), now: () => Date.now() });
    idle.changed();
    const since = idle.idleSince;
    vi.advanceTimersByTime(1500);
    expect(exits).toBe(0);
    expect(idle.idleSince).toBe(since);
    // It only looked: the exit follows at once, counted from the idle time's start, not from the look.
    opening = 0;
    vi.advanceTimersByTime(100);
    expect(exits).toBe(1);
  });

  it('puts the exit off for a connection that never says what it is only for a while', () => {
    let exits = 0;
    const idle = new IdleExit({ afterMs: 1000, inUse: () => false, holdsOff: () => true, exit: () => (exits += 1), now: () => Date.now() });
    idle.changed();
    vi.advanceTimersByTime(1000 + 9_000);
    expect(exits).toBe(0);
    vi.advanceTimersByTime(1_100);
    expect(exits).toBe(1);
  });

  it('never exits once closed', () => {
    const { idle, exits } = clock();
    idle.changed();
    idle.close();
    vi.advanceTimersByTime(5000);
    expect(exits()).toBe(0);
  });
});
