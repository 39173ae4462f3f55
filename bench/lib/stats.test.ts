import { describe, expect, it } from 'vitest';
import { medianInterval, noisyMissReason, pairRatios } from './stats.js';

describe('pair statistics', () => {
  it('puts the interval of the median around it, by rank, whatever the values', () => {
    const samples = Array.from({ length: 60 }, (_, index) => index + 1);
    const { low, high } = medianInterval(samples);
    expect(low).toBeLessThan(30.5);
    expect(high).toBeGreaterThan(30.5);
    // About 1.96 * sqrt(60) / 2 = 7.6 ranks either side of the middle.
    expect(low).toBe(23);
    expect(high).toBe(38);
    expect(medianInterval([...samples].reverse())).toEqual({ low, high });
  });

  it('compares the sides pair by pair and counts the pairs within a goal', () => {
    const pairs = pairRatios([110, 100, 120, 105], [100, 100, 100, 100]);
    expect(pairs.n).toBe(4);
    expect(pairs.median).toBeCloseTo(1.075, 5);
    expect(pairs.atMost(1.1)).toBe(3);
  });

  it('says whether a missed goal is inside the noise of the run', () => {
    const noisy = pairRatios(Array.from({ length: 40 }, (_, index) => 95 + (index % 10) * 2), Array.from({ length: 40 }, () => 100));
    expect(noisyMissReason(noisy, 1.05, 'Own work: 1 ms.')).toMatch(/inside that interval.*Own work: 1 ms\.$/);
    const clear = pairRatios(Array.from({ length: 40 }, () => 130), Array.from({ length: 40 }, () => 100));
    expect(noisyMissReason(clear, 1.05, '')).toMatch(/whole interval is above the goal/);
  });
});
