import { rewriteResponse } from '../../electron/core/router/responseRewriter.js';
import type { ToolResult } from '../../shared/protocol.js';
import type { BenchContext } from '../lib/BenchContext.js';
import { comparePairs } from '../lib/interleave.js';
import { snapshotContext } from '../lib/rewriteContexts.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { noisyMissReason, timed } from '../lib/stats.js';
import { okText, type CallTool } from '../lib/toolCalls.js';

export const BIG_PAGE_PATH = '/big.html';
const WARM_UP = 3;
const PAIRS = 60;
const GOAL = 1.05;

/**
 * take_snapshot of a 2,000-element page: the response (~70 KB of text, with its tree in structured content) is where
 * the router does the most work per call: reading the tree, cutting its text off the reply, recording the epoch's
 * uids and rendering the tree again with session tokens.
 */
export async function snapshotPath(context: BenchContext): Promise<Row[]> {
  context.log('snapshot path: take_snapshot of a 2,000-element page, tabmux vs direct');
  const url = context.pages.url(BIG_PAGE_PATH);
  const session = await context.tabmux.session('bench-snapshot');
  const direct = await context.direct.page(await context.direct.childAt(1));
  okText(await session.call('navigate_page', { type: 'url', url }), 'tabmux navigate_page');
  okText(await direct.call('navigate_page', { type: 'url', url }), 'direct navigate_page');
  const sizes = { tabmux: 0, direct: 0, lines: 0 };
  let directReply: ToolResult | undefined;
  const once = (call: CallTool, what: 'tabmux' | 'direct') => () =>
    timed(async () => {
      const result = await call('take_snapshot', {});
      const text = okText(result, `${what} take_snapshot`);
      sizes[what] = Buffer.byteLength(text);
      if (what === 'direct') {
        directReply = result;
      }
      sizes.lines = text.split('\n').length;
    });
  const { figure, baseline, pairs } = await comparePairs(WARM_UP, PAIRS, once(session.call, 'tabmux'), once(direct.call, 'direct'));
  if (!directReply) {
    throw new Error('no direct take_snapshot reply');
  }
  const routerMs = routerWork(directReply);
  const worker = context.tabmux.daemon.router.sessionInfo(session.id).worker;
  return [
    {
      name: 'snapshot path',
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit: GOAL },
      why: noisyMissReason(pairs, GOAL, `The router's own work on this reply, timed alone, is ${routerMs.toFixed(2)} ms (${((routerMs / baseline.median) * 100).toFixed(1)}% of the direct call).`),
      note: `take_snapshot of 500 × li/a/button/input served from 127.0.0.1, ${PAIRS} interleaved pairs after ${WARM_UP} warm-up calls each. Text: ${(sizes.direct / 1024).toFixed(1)} KiB direct, ${(sizes.tabmux / 1024).toFixed(1)} KiB with session tokens, ${sizes.lines} lines. Session on worker ${worker}, direct page on child 1 (the direct Chrome has as many children as the daemon has workers). Added latency: ${(figure.median - baseline.median).toFixed(2)} ms per call; the router's own work on this response, timed alone on the real reply (reading its structured data and rewriting it, plus the extra JSON hop to the client), is ${routerMs.toFixed(2)} ms, so the rest of the difference is scheduling on this machine.`,
    },
  ];
}

/**
 * What the daemon adds per snapshot beyond the direct path, timed in isolation on the reply just received (text and
 * structured content, as upstream sent it): reading its structured data and rewriting it into session tokens, and the
 * one extra JSON hop (daemon serializes, client parses). Parsing upstream's line is left out: both sides pay it.
 */
function routerWork(reply: ToolResult, reps = 50): number {
  const start = performance.now();
  let sink = 0;
  for (let rep = 0; rep < reps; rep++) {
    const rewritten = rewriteResponse({ ...reply }, snapshotContext());
    const received: unknown = JSON.parse(JSON.stringify(rewritten));
    sink += typeof received === 'object' ? 1 : 0;
  }
  return sink >= 0 ? (performance.now() - start) / reps : Number.NaN;
}
