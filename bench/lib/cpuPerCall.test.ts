import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuPerCall, processCpuNs } from './cpuPerCall.js';

/** This thread's CPU time in ns, as the scheduler counts it (the test runs on its process's main thread). */
function mainThreadNs(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
}

/** Keeps this thread busy until it has used `ms` more of CPU time, however loaded the machine is. */
function spin(ms: number): number {
  const start = mainThreadNs();
  let turns = 0;
  while (mainThreadNs() - start < ms * 1_000_000) {
    turns++;
  }
  return turns;
}

describe.runIf(existsSync('/proc/self/task'))('CPU per call', () => {
  it('reads a process CPU time, its main thread within all of its threads', async () => {
    const before = await processCpuNs(process.pid);
    spin(20);
    const after = await processCpuNs(process.pid);
    expect(before).toBeDefined();
    expect(after).toBeDefined();
    if (!before || !after) {
      return;
    }
    expect(after.main).toBeLessThanOrEqual(after.all);
    expect(after.main - before.main).toBeGreaterThan(5_000_000);
    expect(await processCpuNs(2 ** 22 + 12_345)).toBeUndefined();
  });

  it('counts what a process did between one call and the next toward the first, warm-up left out', async () => {
    const cpu = new CpuPerCall(() => [[process.pid]], 1);
    // Each call spins for its own time; what follows it (up to the next reading) belongs to it as well. The long
    // calls are far above the short one: a collection of the test process's heap can land in any call's reading.
    const spins = [40, 2, 80, 80];
    for (const ms of spins) {
      await cpu.wrap(() => Promise.resolve(spin(ms)))();
    }
    const [series] = await cpu.series();
    // Four calls, the first (the warm-up) left out.
    expect(series?.main.n).toBe(3);
    // The 2 ms call is the cheapest of the three kept, the 80 ms ones above 40 ms each.
    expect(series?.main.min).toBeLessThan(40_000);
    expect(series?.main.max).toBeGreaterThan(40_000);
    // All threads together used at least what the main thread did.
    expect(series?.allMean).toBeGreaterThanOrEqual(series?.main.min ?? Number.NaN);
  });
});
