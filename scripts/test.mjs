/**
 * `npm test`: every suite, each run even when one before it failed, so one run shows every failure (a failed lint
 * must not hide an e2e failure); exits non-zero if any failed. Only a failed build stops it early, since the
 * suites after it run the built files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** Where the test runners also write their results as JSON, read back for the summary's list of failed tests. */
const reports = mkdtempSync(join(tmpdir(), 'tabmux-test-'));
const VITEST_REPORT = join(reports, 'vitest.json');
const PLAYWRIGHT_REPORT = join(reports, 'playwright.json');

/**
 * `needed`: the steps after it cannot run without it. `when`: run only if it says so. `failures`: the names of the
 * tests that failed, with the first line of each one's error, from the step's JSON report.
 */
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
  {
    name: 'unit and integration tests (vitest)',
    command: 'vitest',
    args: ['run', '--project', 'unit', '--project', 'integration', '--reporter=default', '--reporter=json', `--outputFile.json=${VITEST_REPORT}`],
    failures: () => vitestFailures(readReport(VITEST_REPORT)),
  },
  {
    name: 'e2e tests (playwright)',
    command: 'playwright',
    args: ['test', '--reporter=list,json'],
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: PLAYWRIGHT_REPORT },
    failures: () => playwrightFailures(readReport(PLAYWRIGHT_REPORT)),
  },
];

function readReport(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The first line of an error message, without terminal colours, short enough for one summary line. */
function firstLine(message) {
  // eslint-disable-next-line no-control-regex
  const line = String(message ?? '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').find((each) => each.trim() !== '') ?? '';
  return line.trim().slice(0, 200);
}

/** How many of a failed test's last daemon log lines the summary shows. */
const DAEMON_LINES = 8;

function shortLine(line) {
  return line.length > 220 ? `${line.slice(0, 219)}…` : line;
}

/** Where in the test file a failure was raised (`tests/x.test.ts:12`), from the error's stack. */
function failedAt(stack, path) {
  // eslint-disable-next-line no-control-regex
  const plain = String(stack ?? '').replace(/\u001b\[[0-9;]*m/g, '');
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`${escaped}:(\\d+)`).exec(plain);
  return match ? `${path}:${match[1]}` : undefined;
}

function vitestFailures(report) {
  const failures = [];
  for (const file of report?.testResults ?? []) {
    const path = file.name.startsWith(ROOT) ? file.name.slice(ROOT.length + 1) : file.name;
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) {
      const at = failedAt(test.failureMessages?.[0], path);
      const log = (test.meta?.daemonLog ?? []).slice(-DAEMON_LINES).map((line) => `  daemon: ${shortLine(line)}`);
      failures.push([`${path} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`, ...(at ? [`  at ${at}`] : []), ...log].join('\n'));
    }
    // A file that failed outside any test (an import, a hook).
    if (failed.length === 0 && file.status === 'failed') {
      failures.push(`${path}: ${firstLine(file.message)}`);
    }
  }
  return failures;
}

function playwrightFailures(report) {
  const failures = [];
  // A file's suite is titled with the file's name; the suites inside it with their describe() titles.
  const visit = (suite, outer) => {
    const titles = suite.title && suite.title !== suite.file ? [...outer, suite.title] : outer;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status === 'unexpected' || test.status === 'flaky') {
          const where = `tests/e2e/${spec.file}:${String(spec.line)} > ${[...titles, spec.title].join(' > ')}`;
          const error = test.results?.at(-1)?.error?.message ?? test.results?.find((result) => result.error)?.error?.message;
          failures.push(`${where}${test.status === 'flaky' ? ' (flaky: passed on retry)' : ''}: ${firstLine(error)}`);
        }
      }
    }
    for (const child of suite.suites ?? []) {
      visit(child, titles);
    }
  };
  for (const suite of report?.suites ?? []) {
    visit(suite, []);
  }
  for (const error of report?.errors ?? []) {
    failures.push(`outside any test: ${firstLine(error.message)}`);
  }
  return failures;
}

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
  const run = spawnSync(step.command, step.args, { cwd: ROOT, env: { ...env, ...step.env }, stdio: 'inherit', timeout: STEP_TIMEOUT_MS });
  const seconds = Math.round((Date.now() - started) / 1000);
  const why = run.error ? run.error.message : run.status === 0 ? '' : run.status === null ? `stopped by ${String(run.signal)}` : `exit ${String(run.status)}`;
  results.push({ name: step.name, ok: why === '', why, seconds, failures: step.failures?.() ?? [] });
  if (why !== '' && step.needed) {
    process.stdout.write(`\n${step.name} failed (${why}); the steps after it need what it builds, so they are not run\n`);
    skipped = steps.slice(index + 1).map((later) => later.name);
    break;
  }
}

process.stdout.write('\n== summary\n');
for (const result of results) {
  process.stdout.write(`${result.ok ? 'ok    ' : 'FAILED'}  ${result.name} (${result.seconds} s${result.ok ? '' : `, ${result.why}`})\n`);
  for (const failure of result.failures) {
    process.stdout.write(`${failure.split('\n').map((line) => `          ${line}`).join('\n')}\n`);
  }
}
rmSync(reports, { recursive: true, force: true });
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
