import type { BenchContext } from '../lib/BenchContext.js';
import { comparePairs } from '../lib/interleave.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { noisyMissReason, timed } from '../lib/stats.js';
import { okText, type CallTool } from '../lib/toolCalls.js';

export const LOAD_PAGE_PATH = '/load.html';
/** Images and scripts on the page: with the document, the requests each load makes. */
export const LOAD_PAGE_FILES = { images: 10, scripts: 10 } as const;
const WARM_UP = 3;
const PAIRS = 30;
const GOAL = 1.1;

/** Counts what the page fetched, so a side that silently loaded less (a cache, a refusal) breaks the run. */
const COUNT_RESOURCES = { function: '() => ({ resources: performance.getEntriesByType("resource").length, scripts: window.loadedScripts ?? 0 })', waitForStableDom: false } as const;

/**
 * navigate_page to a local page with 20 files (images and scripts, never cached): 21 requests per load, so whatever
 * the daemon's own browser connection adds per request (request interception whose patterns match them) shows up
 * here, on top of routing the call and rewriting its reply.
 */
export async function pageLoad(context: BenchContext): Promise<Row[]> {
  const files = LOAD_PAGE_FILES.images + LOAD_PAGE_FILES.scripts;
  context.log(`page load: navigate_page to a page with ${files} files, tabmux vs direct`);
  const session = await context.tabmux.session('bench-page-load');
  const worker = context.tabmux.daemon.router.sessionInfo(session.id).worker;
  // The same index on both sides: the session's worker and the direct child each hold one upstream connection of their Chrome.
  const direct = await context.direct.page(await context.direct.childAt(worker));
  let load = 0;
  const once = (call: CallTool, what: string) => () =>
    timed(async () => {
      // A new query each time: a new document, not a reload of the same one.
      okText(await call('navigate_page', { type: 'url', url: context.pages.url(`${LOAD_PAGE_PATH}?load=${load++}`) }), what);
    });
  const viaTabmux = once(session.call, 'tabmux navigate_page');
  const viaDirect = once(direct.call, 'direct navigate_page');
  await viaTabmux();
  await viaDirect();
  const loaded = { tabmux: await resources(session.call, 'tabmux'), direct: await resources(direct.call, 'direct') };
  for (const [side, count] of Object.entries(loaded)) {
    if (count.resources < files || count.scripts < LOAD_PAGE_FILES.scripts) {
      throw new Error(`${side} page load fetched ${count.resources} files and ran ${count.scripts} scripts; expected ${files} and ${LOAD_PAGE_FILES.scripts}`);
    }
  }
  const { figure, baseline, pairs } = await comparePairs(WARM_UP, PAIRS, viaTabmux, viaDirect);
  return [
    {
      name: `page load, ${files} files`,
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit: GOAL },
      why: noisyMissReason(pairs, GOAL, `The medians differ by ${(figure.median - baseline.median).toFixed(2)} ms per load, on loads that themselves range from ${baseline.min.toFixed(0)} to ${baseline.max.toFixed(0)} ms direct.`),
      note: `navigate_page (type url) to a page on 127.0.0.1 with ${LOAD_PAGE_FILES.images} images and ${LOAD_PAGE_FILES.scripts} scripts, all no-store (${files + 1} requests per load, checked on both sides), a new query string each time; ${PAIRS} interleaved pairs after ${WARM_UP} warm-up loads each. Figure: a session bound on the daemon's Unix socket, whose reply (with its page list) the router reads and rewrites. Baseline: an MCP SDK client on a chrome-devtools-mcp child of its own Chrome, passing pageId. Session on worker ${worker}, direct page on child ${worker}. Added latency: ${(figure.median - baseline.median).toFixed(2)} ms per load.`,
    },
  ];
}

async function resources(call: CallTool, what: string): Promise<{ resources: number; scripts: number }> {
  const text = okText(await call('evaluate_script', COUNT_RESOURCES), `${what} evaluate_script`);
  const match = /\{"resources":(\d+),"scripts":(\d+)\}/.exec(text);
  if (!match?.[1] || !match[2]) {
    throw new Error(`${what}: no resource count in:\n${text.slice(0, 500)}`);
  }
  return { resources: Number.parseInt(match[1], 10), scripts: Number.parseInt(match[2], 10) };
}
