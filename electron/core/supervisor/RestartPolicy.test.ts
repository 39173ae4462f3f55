import { describe, expect, it } from 'vitest';
import { RestartPolicy } from './RestartPolicy.js';

describe('RestartPolicy', () => {
  it('doubles the delay for failures in a row and gives up after five quick ones', () => {
    const policy = new RestartPolicy();
    const delays = [1, 2, 3, 4].map(() => policy.recordFailure(1000));
    expect(delays).toEqual([1000, 2000, 4000, 8000].map((delayMs) => ({ restart: true, delayMs })));
    expect(policy.recordFailure(null)).toEqual({ restart: false, quickFailures: 5 });
  });

  it('caps the delay at 30 s and starts over after a daemon stayed up', () => {
    const policy = new RestartPolicy({ maxQuickFailures: 100 });
    let last = policy.recordFailure(0);
    for (let i = 0; i < 8; i += 1) {
      last = policy.recordFailure(0);
    }
    expect(last).toEqual({ restart: true, delayMs: 30_000 });
    expect(policy.recordFailure(120_000)).toEqual({ restart: true, delayMs: 1000 });
  });

  it('forgets earlier failures on reset', () => {
    const policy = new RestartPolicy();
    for (let i = 0; i < 4; i += 1) {
      policy.recordFailure(null);
    }
    policy.reset();
    expect(policy.recordFailure(null)).toEqual({ restart: true, delayMs: 1000 });
  });
});
