import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { V8_11_INTERRUPT_BUDGET } from '../../electron/core/platform/optimizeSooner.js';
import { packageRoot } from '../../electron/core/platform/version.js';

/**
 * The lowered optimization budget the bridge sets once it serves its client, as built: how many runs of a
 * small function V8 takes to optimize it, in a Node process that lowered the budget and one that did not. V8's own
 * optimization status is read with its natives syntax; the optimizing compiler runs on the main thread here, so the
 * status changes at the run that triggered it.
 */

const BUILT = pathToFileURL(join(packageRoot(), 'dist', 'electron', 'core', 'platform', 'optimizeSooner.js')).href;
const OPTIMIZED = 1 << 4;
const LIMIT = 1_000_000;

const CHILD = `
const { optimizeSooner } = await import(${JSON.stringify(BUILT)});
const lowered = process.argv[1] === 'default' ? false : optimizeSooner();
function next(value) { return value + 1; }
let runs = 0;
while (runs < ${LIMIT} && (%GetOptimizationStatus(next) & ${OPTIMIZED}) === 0) {
  for (let i = 0; i < 100; i++) next(runs + i);
  runs += 100;
}
process.stdout.write(JSON.stringify({ lowered, runs }));
`;

/** `lowered` calls optimizeSooner, `default` does not, `given` calls it in a Node started with V8's default budget. */
function runsToOptimize(variant: 'lowered' | 'default' | 'given'): { lowered: boolean; runs: number } {
  const given = variant === 'given' ? [`--interrupt-budget=${V8_11_INTERRUPT_BUDGET}`] : [];
  const child = spawnSync(process.execPath, [...given, '--allow-natives-syntax', '--no-concurrent-recompilation', '--input-type=module', '-e', CHILD, variant], { encoding: 'utf8' });
  if (child.status !== 0) {
    throw new Error(`the child failed (${String(child.status)}): ${child.stderr}`);
  }
  return JSON.parse(child.stdout) as { lowered: boolean; runs: number };
}

describe('optimizeSooner', () => {
  it.runIf(process.versions.v8.startsWith('11.'))('has V8 optimize a function after far fewer runs', () => {
    const lowered = runsToOptimize('lowered');
    const byDefault = runsToOptimize('default');
    expect(lowered.lowered).toBe(true);
    expect(byDefault.lowered).toBe(false);
    expect(lowered.runs).toBeLessThan(LIMIT);
    expect(lowered.runs * 4).toBeLessThan(byDefault.runs);
  });

  it.runIf(process.versions.v8.startsWith('11.'))('keeps the budget Node was given on its command line', () => {
    const given = runsToOptimize('given');
    const lowered = runsToOptimize('lowered');
    expect(given.lowered).toBe(false);
    expect(lowered.runs * 4).toBeLessThan(given.runs);
  });
});
