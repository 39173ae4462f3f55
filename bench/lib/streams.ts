import { timed, type Summary } from './stats.js';
import { okText, WAIT_500_EVAL, type CallTool } from './toolCalls.js';

/**
 * Agents working at the same time: each stream makes `calls` calls that wait 500 ms in the page, one after another
 * (an agent needs each answer before its next step), all streams at once. Returns a run that times the whole batch,
 * first call to last answer.
 */
export function waitingAgents(streams: readonly CallTool[], calls: number, what: string): () => Promise<number> {
  return () =>
    timed(() =>
      Promise.all(
        streams.map(async (call) => {
          for (let index = 0; index < calls; index++) {
            okText(await call('evaluate_script', WAIT_500_EVAL), what);
          }
        }),
      ),
    );
}

/** Baseline time over figure time: how many times faster the figure's side finished the same work. */
export function speedUp(figure: Summary, baseline: Summary): number {
  return figure.median === 0 ? Number.NaN : baseline.median / figure.median;
}
