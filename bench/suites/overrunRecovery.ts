import { OVERRUN_GRACE_MS } from '../../electron/core/router/Worker.js';
import type { ToolResult } from '../../shared/protocol.js';
import { textOf } from '../../shared/toolResult.js';
import { compareRounds } from '../lib/interleave.js';
import type { Row } from '../lib/Row.js';
import { summarize, timed } from '../lib/stats.js';
import { TabmuxDaemon } from '../lib/TabmuxDaemon.js';
import type { Teardown } from '../lib/Teardown.js';
import { okText } from '../lib/toolCalls.js';

const CALL_LIMIT_MS = 2000;
/** The neighbour's own limit: long enough that a slow recovery shows as its real length, not as a second timeout. */
const NEIGHBOUR_LIMIT_MS = 30_000;
const WARM_UP = 1;
const ROUNDS = 5;
/** No script runs while it waits, so there is nothing for the browser to terminate: only a new worker frees it. */
const HANG_EVAL = { function: '() => new Promise(() => {})', waitForStableDom: false } as const;
/** A script that never yields: terminating the page's script ends it, and upstream's call with it. */
const LOOP_EVAL = { function: '() => { for (;;) {} }', waitForStableDom: false } as const;
const QUICK_EVAL = { function: '() => document.title', waitForStableDom: false } as const;

/** How one recovery went, in ms from the stuck call's timeout answer. */
interface Recovery {
  answeredMs: number;
  /** The worker's upstream was killed (null: it was not). */
  killedMs: number | null;
  /** Its replacement was running and had found the sessions' tabs again. */
  readyMs: number | null;
}

/**
 * What a call that runs past its limit costs the agents that share its worker: the time from the stuck call's
 * timeout answer to the worker's next answer, a neighbour's quick call sent the moment that timeout arrives. One
 * worker, so the two sessions share it, and a 2 s call limit. Two ways to be stuck: a call that awaits a promise
 * that never settles (the worker must be replaced: killed once its grace ran out, and a new chrome-devtools-mcp
 * started) and a script that never yields (the daemon terminates the page's script and the same
 * worker goes on). The baseline is the neighbour's call on the idle worker. The goal is absolute: the neighbour is
 * answered within one call limit of the timeout, as if its call had been given the full limit of its own.
 */
export async function overrunRecovery(teardown: Teardown, log: (message: string) => void): Promise<Row[]> {
  log(`overrun recovery: a quick call right after a ${CALL_LIMIT_MS} ms timeout, ${ROUNDS} rounds`);
  // list_pages (the neighbour's call) keeps a long limit; evaluate_script (the stuck call) gets the short one.
  const tabmux = await TabmuxDaemon.start(teardown, { workers: 1, callTimeoutMs: CALL_LIMIT_MS, toolTimeoutsMs: { list_pages: NEIGHBOUR_LIMIT_MS } });
  const router = tabmux.daemon.router;
  const stuck = await tabmux.session('bench-overrun-stuck');
  const neighbour = await tabmux.session('bench-overrun-neighbour');
  okText(await stuck.call('evaluate_script', QUICK_EVAL), 'stuck session warm-up');
  okText(await neighbour.call('evaluate_script', QUICK_EVAL), 'neighbour warm-up');
  const worker = (): { pid: number | null; state: string } => router.workers()[0] ?? { pid: null, state: 'missing' };
  const neighbourCall = async (): Promise<string> => okText(await neighbour.call('list_pages', {}), 'neighbour list_pages');

  const recoveries: Record<'hang' | 'loop', Recovery[]> = { hang: [], loop: [] };
  const afterTimeout = (kind: 'hang' | 'loop', args: Record<string, unknown>) => async (): Promise<number> => {
    expectTimeout(await stuck.call('evaluate_script', args), kind);
    const start = performance.now();
    const pidBefore = worker().pid;
    let answered = false;
    const answer = timed(neighbourCall).finally(() => {
      answered = true;
    });
    // Watched from inside the daemon's process, so the figure's parts can be told apart; reading the worker's
    // state is a property read, cheap next to the recovery.
    const recovery: Recovery = { answeredMs: 0, killedMs: null, readyMs: null };
    while (!answered) {
      const now = worker();
      const at = performance.now() - start;
      if (recovery.killedMs === null && now.pid !== pidBefore) {
        recovery.killedMs = at;
      }
      if (recovery.killedMs !== null && recovery.readyMs === null && now.pid !== null && now.state === 'ready') {
        recovery.readyMs = at;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    recovery.answeredMs = await answer;
    recoveries[kind].push(recovery);
    return recovery.answeredMs;
  };
  const idle = (): Promise<number> => timed(neighbourCall);
  const [hang, loop, baseline] = await compareRounds(WARM_UP, ROUNDS, [afterTimeout('hang', HANG_EVAL), afterTimeout('loop', LOOP_EVAL), idle]);
  if (!hang || !loop || !baseline) {
    throw new Error('overrun recovery: a side has no samples');
  }
  const measured = (kind: 'hang' | 'loop'): Recovery[] => recoveries[kind].slice(WARM_UP);
  const replaced = (kind: 'hang' | 'loop'): number => measured(kind).filter((recovery) => recovery.killedMs !== null).length;
  const medianOf = (values: readonly (number | null)[]): number => summarize(values.filter((value): value is number => value !== null)).median;
  const killed = medianOf(measured('hang').map((recovery) => recovery.killedMs));
  const ready = medianOf(measured('hang').map((recovery) => recovery.readyMs));
  const hangParts = `Median parts: the worker killed ${killed.toFixed(0)} ms after the timeout answer (OVERRUN_GRACE_MS = ${OVERRUN_GRACE_MS} ms for the call to end once given up on, while the browser is asked to stop it), its replacement started and the sessions' tabs found again by ${ready.toFixed(0)} ms, the neighbour's call answered ${(hang.median - ready).toFixed(0)} ms after that.`;
  const common = `Session A's evaluate_script times out (callTimeoutMs ${CALL_LIMIT_MS}, one worker); session B sends list_pages the moment A's timeout answer arrives (list_pages given a ${NEIGHBOUR_LIMIT_MS / 1000} s limit of its own, so a slow recovery shows its length instead of timing out too); the figure is from A's answer to B's. ${ROUNDS} rounds after ${WARM_UP} warm-up, sides rotated. Baseline: B's list_pages on the idle worker.`;
  return [
    {
      name: 'next call after a timeout, worker replaced',
      figure: hang,
      baseline,
      unit: 'ms',
      ratio: null,
      goal: { kind: 'under', limit: CALL_LIMIT_MS },
      note: `${common} A: \`() => new Promise(() => {})\` (nothing to terminate; the worker was replaced in ${replaced('hang')} of ${ROUNDS} rounds). ${hangParts} Goal: B answered within one call limit of the timeout.`,
      why: `The worker waits for a stopped call by design: OVERRUN_GRACE_MS (${OVERRUN_GRACE_MS} ms from the moment it was given up on, while the browser is asked to stop it) for the call to end before its upstream is killed; then a new chrome-devtools-mcp starts (a Node process loading upstream's modules and connecting to Chrome) and the sessions' tabs are found again in it. That leaves about ${CALL_LIMIT_MS - OVERRUN_GRACE_MS} ms of the goal for the replacement. ${hangParts}`,
    },
    {
      name: 'next call after a timeout, script ended',
      figure: loop,
      baseline,
      unit: 'ms',
      ratio: null,
      goal: { kind: 'under', limit: CALL_LIMIT_MS },
      note: `${common} A: \`() => { for (;;) {} }\` (the daemon terminates the page's script, and upstream's call ends; the worker was replaced in ${replaced('loop')} of ${ROUNDS} rounds).`,
    },
  ];
}

function expectTimeout(result: ToolResult, kind: string): void {
  const code = result._meta?.['tabmux/error'];
  if (!result.isError || code !== 'timeout') {
    throw new Error(`overrun recovery (${kind}): expected a timeout, got ${String(code)}: ${textOf(result).slice(0, 300)}`);
  }
}
