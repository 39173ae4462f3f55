import type { BenchContext } from '../lib/BenchContext.js';
import type { DirectPage } from '../lib/DirectBrowser.js';
import type { Row } from '../lib/Row.js';
import { summarize } from '../lib/stats.js';
import { speedUp, waitingAgents } from '../lib/streams.js';

const SESSIONS = 4;
const CALLS_PER_SESSION = 5;
const ROUNDS = 3;

interface Side {
  run: () => Promise<number>;
  samples: number[];
}

/**
 * Four agents, each running five calls that wait 500 ms in the page. Through tabmux each agent is a session (the
 * pool pins sessions to workers); the baselines are what agents could do without tabmux: all four on one upstream
 * child (one SDK client, four pages, calls concurrent; upstream's tool mutex runs them one at a time) and the
 * ideal, one child per agent on the same Chrome.
 */
export async function parallelThroughput(context: BenchContext, workers: number): Promise<Row[]> {
  context.log(`parallel throughput: ${SESSIONS} sessions × ${CALLS_PER_SESSION} calls of 500 ms, ${ROUNDS} rounds per side`);
  const sessions = [];
  for (let index = 0; index < SESSIONS; index++) {
    sessions.push(await context.tabmux.session(`bench-parallel-${index}`));
  }
  const children = [];
  for (let index = 0; index < SESSIONS; index++) {
    children.push(await context.direct.child());
  }
  const separate: DirectPage[] = [];
  for (const child of children) {
    separate.push(await context.direct.page(child));
  }
  const sharedChild = children[0];
  if (!sharedChild) {
    throw new Error('no direct child');
  }
  const shared: DirectPage[] = [];
  for (let index = 0; index < SESSIONS; index++) {
    shared.push(await context.direct.page(sharedChild));
  }

  const sides: Record<'tabmux' | 'shared' | 'separate', Side> = {
    tabmux: { run: waitingAgents(sessions.map((session) => session.call), CALLS_PER_SESSION, 'tabmux evaluate_script'), samples: [] },
    shared: { run: waitingAgents(shared.map((page) => page.call), CALLS_PER_SESSION, 'shared-child evaluate_script'), samples: [] },
    separate: { run: waitingAgents(separate.map((page) => page.call), CALLS_PER_SESSION, 'separate-children evaluate_script'), samples: [] },
  };
  // Warm-up: one call per stream opens the tabmux sessions' pages and starts their workers.
  await waitingAgents(sessions.map((session) => session.call), 1, 'tabmux warm-up')();
  await waitingAgents(shared.map((page) => page.call), 1, 'shared warm-up')();
  await waitingAgents(separate.map((page) => page.call), 1, 'separate warm-up')();

  const order = [sides.tabmux, sides.shared, sides.separate];
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate which side goes first, so none always runs on the freshest (or most tired) machine.
    for (let step = 0; step < order.length; step++) {
      const side = order[(round + step) % order.length];
      side?.samples.push(await side.run());
    }
    context.log(`  round ${round + 1}: tabmux ${fmt(sides.tabmux.samples)} ms, shared ${fmt(sides.shared.samples)} ms, separate ${fmt(sides.separate.samples)} ms`);
  }

  const placement = sessions.map((session) => context.tabmux.daemon.router.sessionInfo(session.id).worker);
  const figure = summarize(sides.tabmux.samples);
  const sharedTime = summarize(sides.shared.samples);
  const ideal = summarize(sides.separate.samples);
  const common = `${SESSIONS} streams × ${CALLS_PER_SESSION} sequential evaluate_script calls awaiting a 500 ms timer (waitForStableDom false), median of ${ROUNDS} rounds, sides rotated. Ratio = baseline time / tabmux time (a speed-up). tabmux: workers=${workers}, sessions placed on workers [${placement.join(', ')}] (${new Set(placement).size} distinct)`;
  return [
    {
      name: 'parallel vs one shared child',
      figure,
      baseline: sharedTime,
      unit: 'ms',
      ratio: speedUp(figure, sharedTime),
      goal: { kind: 'min', limit: 3.5 },
      note: `${common}. Baseline: one SDK client on one upstream child, 4 pages, all streams concurrent (upstream's tool mutex serializes them).`,
    },
    {
      name: 'parallel vs 4 separate children',
      figure,
      baseline: ideal,
      unit: 'ms',
      ratio: speedUp(figure, ideal),
      goal: { kind: 'min', limit: 0.9 },
      note: `${common}. Baseline (the ideal): 4 upstream children on one Chrome, one SDK client and one page each.`,
    },
  ];
}

function fmt(samples: readonly number[]): string {
  return (samples[samples.length - 1] ?? Number.NaN).toFixed(0);
}
