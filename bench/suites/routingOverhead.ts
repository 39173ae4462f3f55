import type { BenchContext } from '../lib/BenchContext.js';
import { comparePairs } from '../lib/interleave.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { timed } from '../lib/stats.js';
import { okText, QUICK_EVAL, type CallTool } from '../lib/toolCalls.js';

const WARM_UP = 5;
const PAIRS = 80;

/**
 * The cost of the router on the smallest real call: `evaluate_script () => 1` without the stable-DOM wait, so the
 * call is upstream's ~100 ms navigation watch plus transport, and anything tabmux adds shows up in the ratio.
 */
export async function routingOverhead(context: BenchContext): Promise<Row[]> {
  context.log('routing overhead: evaluate_script round trips, tabmux vs direct');
  const session = await context.tabmux.session('bench-overhead');
  const direct = await context.direct.page(await context.direct.childAt(0));
  const once = (call: CallTool, what: string) => () => timed(async () => okText(await call('evaluate_script', QUICK_EVAL), what));
  const viaTabmux = once(session.call, 'tabmux evaluate_script');
  const viaDirect = once(direct.call, 'direct evaluate_script');
  // The first tabmux call also opens the session's page; warm-up keeps that out of the samples.
  const { figure, baseline } = await comparePairs(WARM_UP, PAIRS, viaTabmux, viaDirect);
  const worker = context.tabmux.daemon.router.sessionInfo(session.id).worker;
  return [
    {
      name: 'routing overhead',
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit: 1.05 },
      note: `evaluate_script \`() => 1\`, waitForStableDom false, ${PAIRS} interleaved pairs after ${WARM_UP} warm-up calls each. Figure: a session bound on the daemon's Unix socket (DaemonClient → router → worker). Baseline: an MCP SDK client on a chrome-devtools-mcp child of its own Chrome, passing pageId. Session on worker ${worker}, direct page on child 0 (the direct Chrome has as many children as the daemon has workers). Added latency: ${(figure.median - baseline.median).toFixed(2)} ms per call.`,
    },
  ];
}
