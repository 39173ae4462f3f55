import type { BenchContext } from '../lib/BenchContext.js';
import type { DirectPage } from '../lib/DirectBrowser.js';
import { compareRounds } from '../lib/interleave.js';
import type { Row } from '../lib/Row.js';
import { speedUp, waitingAgents } from '../lib/streams.js';
import { TabmuxDaemon } from '../lib/TabmuxDaemon.js';

const AGENTS = 8;
const CALLS_PER_AGENT = 5;
const ROUNDS = 3;

/**
 * Eight agents, each running five calls that wait 500 ms in the page, on a daemon started with the default settings
 * (no `workers` in the profile: the pool is the machine's memory budget), as a user gets it without tuning. The
 * 4-agent rows run on the bench daemon's fixed pool of 4; this row checks that the default pool gives eight agents
 * what eight dedicated upstream children give them: the baseline (the ideal) is 8 chrome-devtools-mcp children on the
 * direct Chrome, one page each, all at once. Its own daemon, so its sessions are the first there.
 */
export async function crowdThroughput(context: BenchContext): Promise<Row[]> {
  context.log(`crowd throughput: ${AGENTS} sessions × ${CALLS_PER_AGENT} calls of 500 ms on default settings, ${ROUNDS} rounds per side`);
  const tabmux = await TabmuxDaemon.start(context.teardown);
  const workers = tabmux.daemon.router.settings.workers;
  const sessions = [];
  for (let index = 0; index < AGENTS; index++) {
    sessions.push(await tabmux.session(`bench-crowd-${index}`));
  }
  // The direct Chrome's first children are the 4-agent rows' (reused, each gets a page of its own here): after this
  // it carries 8 children, as many as the daemon runs workers for these sessions.
  const separate: DirectPage[] = [];
  for (let index = 0; index < AGENTS; index++) {
    separate.push(await context.direct.page(await context.direct.childAt(index)));
  }
  const viaTabmux = waitingAgents(sessions.map((session) => session.call), CALLS_PER_AGENT, 'tabmux evaluate_script');
  const viaChildren = waitingAgents(separate.map((page) => page.call), CALLS_PER_AGENT, 'separate-children evaluate_script');
  // Warm-up: one call per stream opens the sessions' pages and starts their workers.
  await waitingAgents(sessions.map((session) => session.call), 1, 'tabmux warm-up')();
  await waitingAgents(separate.map((page) => page.call), 1, 'separate warm-up')();
  const [figure, ideal] = await compareRounds(0, ROUNDS, [viaTabmux, viaChildren]);
  if (!figure || !ideal) {
    throw new Error('crowd throughput: a side has no samples');
  }
  context.log(`  tabmux ${figure.median.toFixed(0)} ms, separate ${ideal.median.toFixed(0)} ms`);
  const placement = sessions.map((session) => tabmux.daemon.router.sessionInfo(session.id).worker);
  return [
    {
      name: `${AGENTS} agents on default settings vs ${AGENTS} separate children`,
      figure,
      baseline: ideal,
      unit: 'ms',
      ratio: speedUp(figure, ideal),
      goal: { kind: 'min', limit: 0.9 },
      note: `${AGENTS} streams × ${CALLS_PER_AGENT} sequential evaluate_script calls awaiting a 500 ms timer (waitForStableDom false), median of ${ROUNDS} rounds, sides rotated. Ratio = baseline time / tabmux time (a speed-up). tabmux: a daemon of its own with the default settings (no workers setting: a pool of ${workers} on this machine's memory), sessions placed on workers [${placement.join(', ')}] (${new Set(placement).size} distinct). Baseline (the ideal): ${AGENTS} upstream children on the direct Chrome, one SDK client and one page each.`,
    },
  ];
}
