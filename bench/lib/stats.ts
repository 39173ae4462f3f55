/** Order statistics of one measured series (milliseconds, microseconds, bytes: whatever was sampled). */
export interface Summary {
  n: number;
  median: number;
  p90: number;
  min: number;
  max: number;
}

/** Nearest-rank quantile: with the small sample counts a bench can afford, interpolation would invent precision. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) {
    return Number.NaN;
  }
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: sorted.length % 2 === 1 ? quantile(sorted, 0.5) : ((sorted[sorted.length / 2 - 1] ?? 0) + (sorted[sorted.length / 2] ?? 0)) / 2,
    p90: quantile(sorted, 0.9),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/**
 * A distribution-free interval for the median of `samples`: the order statistics whose ranks a binomial(n, 1/2)
 * puts 95% of the median's position between (normal approximation, fine from about 20 samples).
 */
export function medianInterval(samples: readonly number[]): { low: number; high: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  const half = 1.96 * Math.sqrt(n) / 2;
  const low = Math.max(0, Math.floor(n / 2 - half));
  const high = Math.min(n - 1, Math.ceil(n / 2 + half) - 1);
  return { low: sorted[low] ?? Number.NaN, high: sorted[high] ?? Number.NaN };
}

/** Side A over side B, pair by pair: what a pair of interleaved runs says about the ratio, noise included. */
export interface PairRatios {
  median: number;
  /** 95% interval of that median (see `medianInterval`). */
  low: number;
  high: number;
  /** How many pairs had a ratio at or under `limit`, for a goal of that kind. */
  atMost: (limit: number) => number;
  n: number;
}

export function pairRatios(a: readonly number[], b: readonly number[]): PairRatios {
  const ratios = a.map((value, index) => value / (b[index] ?? Number.NaN)).filter((ratio) => Number.isFinite(ratio));
  const { low, high } = medianInterval(ratios);
  return { median: summarize(ratios).median, low, high, atMost: (limit) => ratios.filter((ratio) => ratio <= limit).length, n: ratios.length };
}

/**
 * Why a ratio goal between two noisy sides was missed, in numbers from the same pairs: the run-to-run spread of the
 * pairwise ratio against the goal, and what of the difference is the work tabmux itself does (`ownWork`).
 */
export function noisyMissReason(pairs: PairRatios, limit: number, ownWork: string): string {
  const spread = `Pair by pair, tabmux/direct has a median of ${pairs.median.toFixed(2)}× (95% interval ${pairs.low.toFixed(2)}–${pairs.high.toFixed(2)}×); ${pairs.atMost(limit)} of ${pairs.n} pairs were at or under ${limit.toFixed(2)}×.`;
  const verdict = pairs.low <= limit ? ` The goal lies inside that interval: this run cannot tell the difference from noise on this machine.` : ` The whole interval is above the goal.`;
  return `${spread}${verdict} ${ownWork}`;
}
