import { loadavg } from 'node:os';
import type { BenchContext } from './lib/BenchContext.js';
import { DirectBrowser } from './lib/DirectBrowser.js';
import { describeMachine, machineLines } from './lib/machine.js';
import { bigPageHtml, PageServer } from './lib/PageServer.js';
import { missesList, notesList, textTable } from './lib/report.js';
import { loadLine, writeResults } from './lib/resultsFile.js';
import type { Row } from './lib/Row.js';
import { BROWSER_SUITES, selectedSuites, SUITES, type SuiteName } from './lib/suiteFilter.js';
import { TabmuxDaemon } from './lib/TabmuxDaemon.js';
import { subresourcePage } from './lib/subresourcePage.js';
import { Teardown } from './lib/Teardown.js';
import { activityLogCost } from './suites/activityLogCost.js';
import { coldStart } from './suites/coldStart.js';
import { crowdThroughput } from './suites/crowdThroughput.js';
import { headOfLine } from './suites/headOfLine.js';
import { memory } from './suites/memory.js';
import { overrunRecovery } from './suites/overrunRecovery.js';
import { LOAD_PAGE_FILES, LOAD_PAGE_PATH, pageLoad } from './suites/pageLoad.js';
import { pictureCost } from './suites/pictureCost.js';
import { parallelThroughput } from './suites/parallelThroughput.js';
import { rewriteCost } from './suites/rewriteCost.js';
import { routingOverhead } from './suites/routingOverhead.js';
import { policyCost } from './suites/policyCost.js';
import { BIG_PAGE_PATH, snapshotPath } from './suites/snapshotPath.js';
import { bridgePath } from './suites/bridgePath.js';
import { survive } from './suites/survive.js';

/**
 * `npm run bench`: every comparison side by side in one run on the system Chromium and the pinned
 * chrome-devtools-mcp, then a table of medians and ratios on stdout and in bench/RESULTS.md. Goals are reported as
 * PASS/MISS, never enforced: the exit code is non-zero only when something broke. `BENCH_ONLY=rewrite,routing` runs
 * only the named suites; such a partial run prints its rows but leaves bench/RESULTS.md as it was.
 */

/** Pool size of the daemon under test; the parallel rows compare it with four agents. */
const WORKERS = 4;

const log = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

async function main(): Promise<number> {
  let only: ReadonlySet<SuiteName>;
  try {
    only = selectedSuites(process.env['BENCH_ONLY']);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const partial = only.size < SUITES.length;
  const startedAt = new Date();
  const loadAtStart = loadavg()[0] ?? 0;
  const machine = describeMachine();
  for (const line of machineLines(machine)) {
    log(line);
  }
  const rows: Row[] = [];
  const microRows: Row[] = [];
  const failures: string[] = [];
  const teardown = new Teardown();
  const stopAll = async (): Promise<void> => {
    for (const failure of await teardown.run()) {
      log(`cleanup failed: ${failure}`);
    }
  };
  let aborted = false;
  // Ctrl-C must not leave Chrome, upstream children or daemons behind. The suite that was running may still start
  // something while its calls fail, so stop twice, a moment apart.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      aborted = true;
      log(`${signal}: stopping everything`);
      void stopAll()
        .then(() => new Promise((resolve) => setTimeout(resolve, 1000)))
        .then(stopAll)
        .finally(() => process.exit(130));
    });
  }

  const attempt: Attempt = async (suite, name, run) => {
    if (aborted || !only.has(suite)) {
      return;
    }
    try {
      rows.push(...(await run()));
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      failures.push(`${name}: ${message}`);
      log(`${name} broke: ${message}`);
    }
  };

  let workers = WORKERS;
  try {
    // Pure CPU first, while no browser runs beside it; its rows go last in the table, after the end-to-end ones.
    await attempt('rewrite', 'rewrite cost', async () => {
      microRows.push(...(await rewriteCost(log)));
      return [];
    });
    if ([...only].some((suite) => BROWSER_SUITES.has(suite))) {
      workers = await browserSuites(teardown, attempt);
    }
  } catch (error) {
    failures.push(`setup: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await stopAll();
  }
  // Two daemons of its own, one logging and one not, with nothing else running beside them.
  await attempt('activity', 'activity log cost', () => activityLogCost(teardown, log));
  await stopAll();
  // A daemon of its own, so its CPU windows see nothing but the watched tab.
  await attempt('pictures', 'live pictures', () => pictureCost(teardown, log));
  await stopAll();
  // A daemon of its own with a small pool, nothing else running.
  await attempt('headofline', 'quick call beside a long one', () => headOfLine(teardown, log));
  await stopAll();
  // A daemon of its own with one worker and a short call limit: its restarts cost CPU that would spoil other rows.
  await attempt('overrun', 'overrun recovery', () => overrunRecovery(teardown, log));
  await stopAll();
  // Cold start on a quiet machine, with its own processes: everything above is stopped by now.
  await attempt('coldstart', 'cold start', () => coldStart(teardown, log));
  await stopAll();
  // A daemon of its own per sample, killed or restarted, nothing else running.
  await attempt('survive', 'survive a daemon crash or restart', () => survive(teardown, log));
  await stopAll();

  rows.push(...microRows);
  const durationS = (Date.now() - startedAt.getTime()) / 1000;
  const load = { start: loadAtStart, end: loadavg()[0] ?? 0 };
  process.stdout.write(`\n${[...machineLines(machine), loadLine(load, machine.cores)].join('\n')}\n\n${textTable(rows)}\n\n${notesList(rows)}\n\nGoals missed, and why:\n${missesList(rows)}\n\n`);
  if (failures.length > 0) {
    process.stdout.write(`Broken (results not written):\n${failures.map((failure) => `- ${failure}`).join('\n')}\n`);
    return 1;
  }
  if (partial) {
    process.stdout.write(`BENCH_ONLY=${[...only].join(',')}: a partial run, bench/RESULTS.md left as it was (${durationS.toFixed(0)} s)\n`);
    return 0;
  }
  const file = writeResults({ machine, rows, startedAt, durationS, workers, load });
  process.stdout.write(`Wrote ${file} (${durationS.toFixed(0)} s)\n`);
  return 0;
}

type Attempt = (suite: SuiteName, name: string, run: () => Promise<Row[]> | Row[]) => Promise<void>;

/** The end-to-end suites on one tabmux daemon, one direct Chrome and one page server; returns the daemon's pool size. */
async function browserSuites(teardown: Teardown, attempt: Attempt): Promise<number> {
  log(`starting tabmux daemon (workers=${WORKERS}), a direct Chrome and a page server`);
  const loadPage = subresourcePage(LOAD_PAGE_PATH, LOAD_PAGE_FILES.images, LOAD_PAGE_FILES.scripts);
  const pages = await PageServer.start(teardown, { [BIG_PAGE_PATH]: bigPageHtml(), ...loadPage });
  const tabmux = await TabmuxDaemon.start(teardown, { workers: WORKERS });
  const workers = tabmux.daemon.router.settings.workers;
  const direct = await DirectBrowser.launch(teardown);
  const context: BenchContext = { teardown, tabmux, direct, pages, log };
  // Throughput first: its four sessions are the daemon's first, so placement is not skewed by the others.
  await attempt('parallel', 'parallel throughput', () => parallelThroughput(context, workers));
  await attempt('routing', 'routing overhead', () => routingOverhead(context));
  await attempt('policies', 'policy cost', () => policyCost(context));
  await attempt('bridge', 'bridge path', () => bridgePath(context));
  await attempt('snapshot', 'snapshot path', () => snapshotPath(context));
  await attempt('navigation', 'page load', () => pageLoad(context));
  await attempt('memory', 'memory', () => memory(context));
  // After memory, whose per-child figures count the direct Chrome's children: this row adds four more there.
  await attempt('crowd', 'crowd throughput', () => crowdThroughput(context));
  return workers;
}

process.exitCode = await main();
