import { rewriteResponse } from '../../electron/core/router/responseRewriter.js';
import { textResult } from '../../shared/toolResult.js';
import type { BenchContext } from '../lib/BenchContext.js';
import { comparePairs } from '../lib/interleave.js';
import { snapshotContext } from '../lib/rewriteContexts.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { timed } from '../lib/stats.js';
import { okText, type CallTool } from '../lib/toolCalls.js';

export const BIG_PAGE_PATH = '/big.html';
const WARM_UP = 3;
const PAIRS = 25;

/**
 * take_snapshot of a 2,000-element page: the response (~60 KB of text) is where the router does the most work per
 * call, parsing sections, recording the epoch's uids and turning every uid into a session token.
 */
export async function snapshotPath(context: BenchContext): Promise<Row[]> {
  context.log('snapshot path: take_snapshot of a 2,000-element page, tabmux vs direct');
  const url = context.pages.url(BIG_PAGE_PATH);
  const session = await context.tabmux.session('bench-snapshot');
  const direct = await context.direct.page(await context.direct.childAt(1));
  okText(await session.call('navigate_page', { type: 'url', url }), 'tabmux navigate_page');
  okText(await direct.call('navigate_page', { type: 'url', url }), 'direct navigate_page');
  const sizes = { tabmux: 0, direct: 0, lines: 0 };
  let directText = '';
  const once = (call: CallTool, what: 'tabmux' | 'direct') => () =>
    timed(async () => {
      const text = okText(await call('take_snapshot', {}), `${what} take_snapshot`);
      sizes[what] = Buffer.byteLength(text);
      if (what === 'direct') {
        directText = text;
      }
      sizes.lines = text.split('\n').length;
    });
  const { figure, baseline } = await comparePairs(WARM_UP, PAIRS, once(session.call, 'tabmux'), once(direct.call, 'direct'));
  const routerMs = routerWork(directText);
  const worker = context.tabmux.daemon.router.sessionInfo(session.id).worker;
  return [
    {
      name: 'snapshot path',
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit: 1.05 },
      note: `take_snapshot of 500 × li/a/button/input served from 127.0.0.1, ${PAIRS} interleaved pairs after ${WARM_UP} warm-up calls each. Text: ${(sizes.direct / 1024).toFixed(1)} KiB direct, ${(sizes.tabmux / 1024).toFixed(1)} KiB with session tokens, ${sizes.lines} lines. Session on worker ${worker}, direct page on child 1 (the direct Chrome has as many children as the daemon has workers). Added latency: ${(figure.median - baseline.median).toFixed(2)} ms per call; the router's own work on this response, timed alone on the real text (rewrite + the extra JSON hop to the client), is ${routerMs.toFixed(2)} ms, so the rest of the difference is scheduling on this machine.`,
    },
  ];
}

/**
 * What the daemon adds per snapshot beyond the direct path, timed in isolation on the response just received:
 * rewriting it into session tokens and the one extra JSON hop (daemon serializes, client parses).
 */
function routerWork(text: string, reps = 50): number {
  const input = textResult(text);
  const start = performance.now();
  let sink = 0;
  for (let rep = 0; rep < reps; rep++) {
    const rewritten = rewriteResponse(input, snapshotContext());
    const parsed: unknown = JSON.parse(JSON.stringify(rewritten));
    sink += typeof parsed === 'object' ? 1 : 0;
  }
  return sink >= 0 ? (performance.now() - start) / reps : Number.NaN;
}
