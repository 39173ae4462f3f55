import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuPerCall, processCpuNs } from './cpuPerCall.js';

/** Keeps this thread busy until the process has used `ms` more of CPU time, however loaded the machine is. */
function spin(ms: number): number {
  const start = process.cpuUsage();
  let turns = 0;
  for (let used = 0; used < ms * 1000; turns++) {
    const { user, system } = process.cpuUsage(start);
    used = user + system;
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
    // Each call spins for its own time; what follows it (up to the next reading) belongs to it as well.
    const spins = [40, 2, 30, 30];
    for (const ms of spins) {
      await cpu.wrap(() => Promise.resolve(spin(ms)))();
    }
    const [series] = await cpu.series();
    // Four calls, the first (the warm-up) left out.
    expect(series?.main.n).toBe(3);
    // The 2 ms call is the cheapest of the three kept, the 30 ms ones above 10 ms each.
    expect(series?.main.min).toBeLessThan(10_000);
    expect(series?.main.max).toBeGreaterThan(10_000);
    // All threads together used at least what the main thread did.
    expect(series?.allMean).toBeGreaterThanOrEqual(series?.main.min ?? Number.NaN);
  });
});
