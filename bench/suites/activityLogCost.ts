import { comparePairs } from '../lib/interleave.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { timed } from '../lib/stats.js';
import { TabmuxDaemon } from '../lib/TabmuxDaemon.js';
import type { Teardown } from '../lib/Teardown.js';
import { okText, QUICK_EVAL } from '../lib/toolCalls.js';

const WARM_UP = 5;
const PAIRS = 100;

/**
 * What the activity log adds to an agent's call: the same smallest real call on two daemons that differ only in
 * the profile's `activityLog` setting, each with one worker and its own Chrome, measured in interleaved pairs.
 */
export async function activityLogCost(teardown: Teardown, log: (message: string) => void): Promise<Row[]> {
  log('activity log cost: evaluate_script round trips, logging on vs off');
  const logging = await TabmuxDaemon.start(teardown, { workers: 1 });
  const silent = await TabmuxDaemon.start(teardown, { workers: 1, activityLog: false });
  const on = await logging.session('bench-log-on');
  const off = await silent.session('bench-log-off');
  const withLog = () => timed(async () => okText(await on.call('evaluate_script', QUICK_EVAL), 'logged evaluate_script'));
  const withoutLog = () => timed(async () => okText(await off.call('evaluate_script', QUICK_EVAL), 'unlogged evaluate_script'));
  const { figure, baseline } = await comparePairs(WARM_UP, PAIRS, withLog, withoutLog);
  const written = (await logging.daemon.queryLog({ session: on.id, limit: 1000 })).entries.length;
  return [
    {
      name: 'activity log on vs off',
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit: 1.02 },
      note: `evaluate_script \`() => 1\`, waitForStableDom false, ${PAIRS} interleaved pairs after ${WARM_UP} warm-up calls each, each side a daemon with one worker and its own Chrome. Figure: activity log on (the default; ${written} entries written, each handed to the OS before its reply, from the event loop itself on a local file system: see docs/activity-log.md). Baseline: the profile's activityLog false. Added latency: ${(figure.median - baseline.median).toFixed(2)} ms per call.`,
    },
  ];
}
