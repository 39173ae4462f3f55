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
