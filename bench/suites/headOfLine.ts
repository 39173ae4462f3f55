import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { summarize, timed } from '../lib/stats.js';
import { TabmuxDaemon, type BoundSession } from '../lib/TabmuxDaemon.js';
import type { Teardown } from '../lib/Teardown.js';
import { okText } from '../lib/toolCalls.js';

/** Quick sessions measured per long-call window: each shares its worker with a long call, and as many workers idle. */
const PAIRS = 4;
const ROUNDS = 2;
const LONG_MS = 15_000;
/** The two warm-up rounds' long calls: long enough to span the quick calls on a busy machine, short enough to cost little. */
const WARM_UP_LONG_MS = 4_000;
/** From the long calls' start to the first quick call (see `besideLong`). */
const SETTLE_MS = 1_000;
const QUICK_EVAL = { function: '() => document.title', waitForStableDom: false } as const;

function longEval(ms: number): Record<string, unknown> {
  return { function: `async () => { await new Promise((resolve) => setTimeout(resolve, ${ms})); return 1; }`, waitForStableDom: false };
}

interface Pair {
  quick: BoundSession;
  long: BoundSession;
}

/**
 * A quick call of one agent while another agent's call runs for 15 s, vs the same quick call with nobody busy: does
 * a long call hold up a neighbour? It only can when two sessions share a worker, which happens once a daemon has more
 * sessions than workers (with the default pool, up to 16 here, every session below would have a worker of its own).
 * So this row runs the hard case: a daemon with 2 workers per pair, each quick session pinned to the worker of a
 * session that starts a 15 s call, the other workers idle (their sessions have nothing to do). The quick call must
 * not wait for the long one: its session moves to an idle worker first, and that move is part of the figure.
 *
 * The pairs share each 15 s window (the quick calls one after another, so they do not compete with each other):
 * several samples for the wall time of one long call. Rounds alternate which side goes first. A worker learns the
 * Chrome tab ids of the tabs it lists once; the first moves, which pay for that, are measured in the warm-up and
 * reported apart, with no goal.
 */
export async function headOfLine(teardown: Teardown, log: (message: string) => void): Promise<Row[]> {
  log(`head of line: a quick call beside a ${LONG_MS / 1000} s call, ${PAIRS} pairs × ${ROUNDS} rounds`);
  const tabmux = await TabmuxDaemon.start(teardown, { workers: 2 * PAIRS });
  const router = tabmux.daemon.router;
  // Pinned in order to the least loaded worker: the long and idle sessions get a worker each, then each quick session
  // joins a long one's worker. `pairs()` reads the placement again every round rather than trusting this order.
  const sessions: BoundSession[] = [];
  for (let index = 0; index < 2 * PAIRS; index++) {
    sessions.push(await tabmux.session(`bench-hol-${index < PAIRS ? 'long' : 'idle'}-${index % PAIRS}`));
  }
  const quicks: BoundSession[] = [];
  for (let index = 0; index < PAIRS; index++) {
    quicks.push(await tabmux.session(`bench-hol-quick-${index}`));
  }
  // Every session opens its page, and with it every worker starts: an idle worker is one that runs and has nothing to do.
  for (const session of [...sessions, ...quicks]) {
    okText(await session.call('evaluate_script', QUICK_EVAL), 'warm-up evaluate_script');
  }
  const workerOf = (session: BoundSession): number => router.sessionInfo(session.id).worker;

  /** Each quick session with a session sharing its worker; the quick sessions' workers distinct, the rest idle. */
  const pairs = (): Pair[] => {
    const result = quicks.map((quick) => {
      const long = [...sessions, ...quicks].find((other) => other !== quick && workerOf(other) === workerOf(quick));
      if (!long) {
        throw new Error(`head of line: quick session ${quick.id} shares worker ${workerOf(quick)} with nobody`);
      }
      return { quick, long };
    });
    const shared = new Set(quicks.map(workerOf));
    if (shared.size !== PAIRS || result.some((pair) => quicks.includes(pair.long))) {
      throw new Error(`head of line: quick sessions are not on ${PAIRS} workers of their own with one other session each: [${quicks.map(workerOf).join(', ')}]`);
    }
    return result;
  };

  let moves = 0;
  /** Long calls start on the quick sessions' workers; once they run, each quick session makes its call. */
  const besideLong = async (longMs: number, mustSpan: boolean): Promise<number[]> => {
    const current = pairs();
    let longEnded = false;
    const longCalls = current.map((pair) => pair.long.call('evaluate_script', longEval(longMs)));
    void Promise.allSettled(longCalls).then(() => {
      longEnded = true;
    });
    const longIds = new Set(current.map((pair) => pair.long.id));
    while (router.queue().filter((entry) => longIds.has(entry.sessionId) && entry.state === 'running').length < longIds.size) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Sent is not yet waiting: upstream and Chrome still work on the long calls' start for a moment, CPU that would
    // land on the first quick call. The row is about a call in the middle of a long one.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const samples: number[] = [];
    for (const { quick } of current) {
      const before = workerOf(quick);
      samples.push(await timed(async () => okText(await quick.call('evaluate_script', QUICK_EVAL), 'quick evaluate_script beside a long call')));
      moves += workerOf(quick) === before ? 0 : 1;
    }
    if (longEnded && mustSpan) {
      // The quick calls must all have run beside the long ones, or they measured nothing.
      throw new Error(`head of line: the ${longMs} ms calls ended before the quick calls did`);
    }
    for (const call of longCalls) {
      okText(await call, 'long evaluate_script');
    }
    return samples;
  };
  /** The same quick calls, one after another, with nothing else running in the daemon. */
  const alone = async (): Promise<number[]> => {
    const samples: number[] = [];
    for (const quick of quicks) {
      samples.push(await timed(async () => okText(await quick.call('evaluate_script', QUICK_EVAL), 'quick evaluate_script alone')));
    }
    return samples;
  };

  // Two warm-up rounds with short long calls: each quick session moves to the other set of workers and back, so
  // every worker has learned the Chrome tab ids of the tabs it lists (a move looks up the ones it has not: one
  // get_tab_id each). Those first moves are reported on a row of their own.
  // On a loaded machine a first move can outlast a short long call: it then did not move, which the count says.
  const firstMoves = [...(await besideLong(WARM_UP_LONG_MS, false)), ...(await besideLong(WARM_UP_LONG_MS, false))];
  const firstMoveCount = moves;
  await alone();
  moves = 0;
  const beside: number[] = [];
  const idle: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      beside.push(...(await besideLong(LONG_MS, true)));
      idle.push(...(await alone()));
    } else {
      idle.push(...(await alone()));
      beside.push(...(await besideLong(LONG_MS, true)));
    }
    log(`  round ${round + 1}: beside ${beside.slice(-PAIRS).map((ms) => ms.toFixed(0)).join('/')} ms, alone ${idle.slice(-PAIRS).map((ms) => ms.toFixed(0)).join('/')} ms`);
  }
  const figure = summarize(beside);
  const baseline = summarize(idle);
  const first = summarize(firstMoves);
  const measured = ROUNDS * PAIRS;
  return [
    {
      name: `quick call beside a ${LONG_MS / 1000} s call`,
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit: 1.2 },
      note: `evaluate_script \`() => document.title\` (waitForStableDom false) of session Q while session L, pinned to the same worker, runs an evaluate_script awaiting a ${LONG_MS / 1000} s timer. The hard case: a daemon with workers=${2 * PAIRS} and ${3 * PAIRS} sessions (default settings would give each session a worker of its own), ${PAIRS} such pairs at once, the other ${PAIRS} workers running with an idle session each; the quick calls one after another from ${SETTLE_MS / 1000} s into the long calls. ${ROUNDS} rounds of one ${LONG_MS / 1000} s window, sides alternating, ${measured} samples per side. ${moves} of ${measured} quick calls moved their session to an idle worker first (a move finds the session's pages there by Chrome tab id), which is in the figure: ${(figure.median - baseline.median).toFixed(1)} ms over the baseline. Two warm-up rounds with ${WARM_UP_LONG_MS / 1000} s calls went first (the row below), so that every worker knew the tab ids of the tabs it lists. Baseline: the same quick calls with nothing else running.`,
    },
    {
      name: `quick call beside a long call, first move to a worker`,
      figure: first,
      baseline,
      unit: 'ms',
      ratio: ratio(first, baseline),
      goal: { kind: 'info' },
      note: `The same quick calls in the two warm-up rounds (long calls of ${WARM_UP_LONG_MS / 1000} s): ${firstMoveCount} of ${firstMoves.length} moved their session to a worker that had not yet asked upstream for the Chrome tab ids of the tabs it lists; the move asks once per such tab (get_tab_id, one upstream call each; here ${3 * PAIRS} sessions with a tab each), and a worker keeps what it learned until its upstream restarts. Baseline: the row above's.`,
    },
  ];
}
