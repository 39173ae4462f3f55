import type { BenchContext } from '../lib/BenchContext.js';
import { startBridge } from '../lib/BridgeProcess.js';
import { comparePairs, interleavePairs } from '../lib/interleave.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { summarize, timed } from '../lib/stats.js';
import { okText, QUICK_EVAL, type CallTool } from '../lib/toolCalls.js';
import { UpstreamClient } from '../../electron/core/UpstreamClient.js';
import { Logger } from '../../electron/core/Logger.js';

const ATTACH_PAIRS = 10;
const WARM_UP = 5;
const PAIRS = 60;

/**
 * The way agents reach tabmux: `tabmux mcp serve` on stdio in front of the daemon. Attach time (spawn to the
 * first `tools/list` answered) and the cost of a fast call through the whole path, each against the same thing
 * done on a chrome-devtools-mcp child of the direct Chrome with the same SDK client.
 */
export async function bridgePath(context: BenchContext): Promise<Row[]> {
  context.log(`bridge path: attach time, list_pages and evaluate_script through tabmux mcp serve vs direct`);
  const env = context.tabmux.env;
  const browserUrl = context.direct.chrome.browserUrl;
  const attachTabmux = async (): Promise<number> => {
    const bridge = await startBridge(context.teardown, env);
    await bridge.close();
    return bridge.attachMs;
  };
  const attachDirect = async (): Promise<number> => {
    const started = performance.now();
    const child = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: browserUrl }, logger: Logger.silent() });
    await child.listTools();
    const elapsed = performance.now() - started;
    await child.close();
    return elapsed;
  };
  await attachTabmux();
  await attachDirect();
  const attach = await interleavePairs(ATTACH_PAIRS, attachTabmux, attachDirect);
  const attachFigure = summarize(attach.a);
  const attachBaseline = summarize(attach.b);

  const bridge = await startBridge(context.teardown, env, 'bench-bridge-calls');
  const direct = await context.direct.page(await context.direct.childAt(0));
  const once = (call: CallTool, tool: string, args: Record<string, unknown>, what: string) => () => timed(async () => okText(await call(tool, args), what));
  const lists = await comparePairs(WARM_UP, PAIRS, once(bridge.call, 'list_pages', {}, 'bridge list_pages'), once((tool, args) => direct.child.callTool(tool, args), 'list_pages', {}, 'direct list_pages'));
  const evals = await comparePairs(
    WARM_UP,
    PAIRS,
    once(bridge.call, 'evaluate_script', QUICK_EVAL, 'bridge evaluate_script'),
    once(direct.call, 'evaluate_script', QUICK_EVAL, 'direct evaluate_script'),
  );
  await bridge.close();
  const path = 'Figure: the SDK client on a `tabmux mcp serve` child (stdio → bridge → daemon socket → router → worker). Baseline: the same SDK client on a chrome-devtools-mcp child of the direct Chrome, passing pageId where the tool takes one.';
  return [
    {
      name: 'bridge attach',
      figure: attachFigure,
      baseline: attachBaseline,
      unit: 'ms',
      ratio: ratio(attachFigure, attachBaseline),
      goal: { kind: 'under', limit: 100 },
      note: `Spawn of \`tabmux mcp serve\` (daemon already running) to its first \`tools/list\` answered, through initialize, with the SDK's stdio client; ${ATTACH_PAIRS} interleaved pairs after a warm-up. Baseline: spawn of a chrome-devtools-mcp child on the direct Chrome to its \`tools/list\` answered. Goal: the figure itself, at most 100 ms.`,
    },
    {
      name: 'list_pages through the bridge',
      figure: lists.figure,
      baseline: lists.baseline,
      unit: 'ms',
      ratio: ratio(lists.figure, lists.baseline),
      goal: { kind: 'max', limit: 1.1 },
      note: `list_pages, ${PAIRS} interleaved pairs after ${WARM_UP} warm-up calls each. ${path} Added latency: ${(lists.figure.median - lists.baseline.median).toFixed(2)} ms per call.`,
    },
    {
      name: 'evaluate_script through the bridge',
      figure: evals.figure,
      baseline: evals.baseline,
      unit: 'ms',
      ratio: ratio(evals.figure, evals.baseline),
      goal: { kind: 'max', limit: 1.02 },
      note: `evaluate_script \`() => 1\`, waitForStableDom false, ${PAIRS} interleaved pairs after ${WARM_UP} warm-up calls each. ${path} Added latency: ${(evals.figure.median - evals.baseline.median).toFixed(2)} ms per call.`,
    },
  ];
}
