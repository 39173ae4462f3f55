/**
 * `npm test`: every suite, each run even when one before it failed, so one run shows every failure (a failed lint
 * must not hide an e2e failure); exits non-zero if any failed. Only a failed build stops it early, since the
 * suites after it run the built files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
/** Far above a full suite on a loaded machine; a step still running then has hung, and is stopped as failed. */
const STEP_TIMEOUT_MS = 60 * 60_000;

/**
 * Whether tests/thirdParty (programs the tests run tabmux with, installed apart from tabmux's dependencies; see its
 * package.json) needs installing: never installed, or installed from an older lockfile.
 */
function thirdPartyStale() {
  const dir = join(ROOT, 'tests', 'thirdParty');
  const installed = join(dir, 'node_modules', '.package-lock.json');
  return !existsSync(installed) || statSync(installed).mtimeMs < statSync(join(dir, 'package-lock.json')).mtimeMs;
}

/** `needed`: the steps after it cannot run without it. `when`: run only if it says so. */
const steps = [
  {
    name: 'install the tests\' third-party programs (tests/thirdParty)',
    command: 'npm',
    args: ['ci', '--prefix', 'tests/thirdParty', '--no-audit', '--no-fund'],
    when: thirdPartyStale,
  },
  { name: 'build', command: 'npm', args: ['run', 'build'], needed: true },
  { name: 'build:electron', command: 'npm', args: ['run', 'build:electron'], needed: true },
  { name: 'typecheck', command: 'npm', args: ['run', 'typecheck'] },
  { name: 'lint', command: 'npm', args: ['run', 'lint'] },
  { name: 'unit and integration tests (vitest)', command: 'vitest', args: ['run', '--project', 'unit', '--project', 'integration'] },
  { name: 'e2e tests (playwright)', command: 'playwright', args: ['test'] },
];

// Run directly (`node scripts/test.mjs`) as well as by npm, which puts the project's commands on PATH.
const env = { ...process.env, PATH: [join(ROOT, 'node_modules', '.bin'), process.env.PATH ?? ''].join(delimiter) };
const results = [];
/** The steps not run because a build before them failed. */
let skipped = [];
for (const [index, step] of steps.entries()) {
  if (step.when !== undefined && !step.when()) {
    continue;
  }
  process.stdout.write(`\n== ${step.name}\n`);
  const started = Date.now();
  const run = spawnSync(step.command, step.args, { cwd: ROOT, env, stdio: 'inherit', timeout: STEP_TIMEOUT_MS });
  const seconds = Math.round((Date.now() - started) / 1000);
  const why = run.error ? run.error.message : run.status === 0 ? '' : run.status === null ? `stopped by ${String(run.signal)}` : `exit ${String(run.status)}`;
  results.push({ name: step.name, ok: why === '', why, seconds });
  if (why !== '' && step.needed) {
    process.stdout.write(`\n${step.name} failed (${why}); the steps after it need what it builds, so they are not run\n`);
    skipped = steps.slice(index + 1).map((later) => later.name);
    break;
  }
}

process.stdout.write('\n== summary\n');
for (const result of results) {
  process.stdout.write(`${result.ok ? 'ok    ' : 'FAILED'}  ${result.name} (${result.seconds} s${result.ok ? '' : `, ${result.why}`})\n`);
}
for (const name of skipped) {
  process.stdout.write(`not run ${name}\n`);
}
const failed = results.filter((result) => !result.ok).map((result) => result.name);
if (failed.length > 0 || skipped.length > 0) {
  process.stdout.write(`npm test failed: ${[...failed, ...skipped.map((name) => `${name} (not run)`)].join(', ')}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`npm test: all ${results.length} steps passed\n`);
}
