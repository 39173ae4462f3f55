import { pairRatios, summarize, type PairRatios, type Summary } from './stats.js';

/**
 * Runs two measured sides in alternating ABBA order (A B, B A, A B, ...), so slow drift of the machine (a warming
 * cache, a background process) falls on both sides alike. Returns the samples of each side.
 */
export async function interleavePairs(iterations: number, a: () => Promise<number>, b: () => Promise<number>): Promise<{ a: number[]; b: number[] }> {
  const samples: { a: number[]; b: number[] } = { a: [], b: [] };
  for (let index = 0; index < iterations; index++) {
    if (index % 2 === 0) {
      samples.a.push(await a());
      samples.b.push(await b());
    } else {
      samples.b.push(await b());
      samples.a.push(await a());
    }
  }
  return samples;
}

/**
 * Warms both sides up, then measures them in interleaved pairs: `figure` is side A (tabmux), `baseline` side B, and
 * `pairs` their ratio pair by pair.
 */
export async function comparePairs(
  warmUp: number,
  pairs: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
): Promise<{ figure: Summary; baseline: Summary; pairs: PairRatios }> {
  for (let index = 0; index < warmUp; index++) {
    await a();
    await b();
  }
  const samples = await interleavePairs(pairs, a, b);
  return { figure: summarize(samples.a), baseline: summarize(samples.b), pairs: pairRatios(samples.a, samples.b) };
}

/**
 * Several sides measured in rounds, each round running every side once in a rotated order, after `warmUp` rounds:
 * the sides share the machine's state as closely as sequential runs can. Returns each side's summary, in order.
 */
export async function compareRounds(warmUp: number, rounds: number, sides: readonly (() => Promise<number>)[]): Promise<Summary[]> {
  const samples: number[][] = sides.map(() => []);
  for (let round = 0; round < warmUp + rounds; round++) {
    for (let step = 0; step < sides.length; step++) {
      const index = (round + step) % sides.length;
      const elapsed = await sides[index]?.();
      if (round >= warmUp && elapsed !== undefined) {
        samples[index]?.push(elapsed);
      }
    }
  }
  return samples.map((series) => summarize(series));
}
