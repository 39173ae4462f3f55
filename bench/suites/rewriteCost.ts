import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { rewriteResponse, type RewriteContext } from '../../electron/core/router/responseRewriter.js';
import { textResult } from '../../shared/toolResult.js';
import type { ToolResult } from '../../shared/protocol.js';
import type { Row } from '../lib/Row.js';
import { summarize, type Summary } from '../lib/stats.js';
import { pageListContext, snapshotContext } from '../lib/rewriteContexts.js';
import { pageListText, snapshotText } from '../lib/syntheticText.js';

const SAMPLES = 25;
const SAMPLE_MS = 40;

/**
 * A way to collect garbage without starting node with --expose-gc: the flag can be set at run time, and a fresh
 * context then has `gc`. Without it the allocation figures would include whatever garbage was lying around.
 */
function exposeGc(): (() => void) | undefined {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  return isCallable(gc) ? () => gc() : undefined;
}

/** V8's gc takes no arguments and returns nothing we use. */
function isCallable(value: unknown): value is () => void {
  return typeof value === 'function';
}

interface Measured {
  kib: number;
  msPerOp: Summary;
  usPerKib: Summary;
  bytesPerKib: Summary | undefined;
}

/** Time per rewrite (batches of ~40 ms, so timer resolution does not matter) and heap growth per rewrite after a gc. */
function measure(input: ToolResult, makeContext: () => RewriteContext, gc: (() => void) | undefined): Measured {
  const text = input.content[0]?.text ?? '';
  const kib = Buffer.byteLength(text) / 1024;
  let sink = 0;
  const start = performance.now();
  let warm = 0;
  while (performance.now() - start < 300 || warm < 5) {
    sink += rewriteResponse(input, makeContext()).content.length;
    warm++;
  }
  const perOp = (performance.now() - start) / warm;
  const reps = Math.max(1, Math.round(SAMPLE_MS / perOp));
  const times: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const context = makeContext();
    const t0 = performance.now();
    for (let rep = 0; rep < reps; rep++) {
      sink += rewriteResponse(input, context).content.length;
    }
    times.push((performance.now() - t0) / reps);
  }
  let bytesPerKib: Summary | undefined;
  if (gc) {
    const deltas: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample++) {
      const context = makeContext();
      gc();
      const before = process.memoryUsage().heapUsed;
      const output = rewriteResponse(input, context);
      const after = process.memoryUsage().heapUsed;
      sink += output.content.length;
      deltas.push((after - before) / kib);
    }
    bytesPerKib = summarize(deltas);
  }
  if (sink < 0) {
    throw new Error('unreachable: keeps the results alive');
  }
  const msPerOp = summarize(times);
  return { kib, msPerOp, usPerKib: summarize(times.map((ms) => (ms * 1000) / kib)), bytesPerKib };
}

function bytes(value: Summary | undefined): string {
  return value === undefined ? 'n/a (no gc)' : `${value.median.toFixed(0)} B/KiB`;
}

/**
 * The router's per-response work in isolation: uid tokens over snapshots of 10,000 and 40,000 nodes, and page-list
 * filtering over 1,000 and 4,000 tabs. Both must stay linear in the response size and allocate little.
 */
export function rewriteCost(log: (message: string) => void): Row[] {
  log('rewrite cost: rewriteResponse over synthetic snapshots and page lists');
  const gc = exposeGc();
  const small = measure(textResult(snapshotText(10_000)), snapshotContext, gc);
  const large = measure(textResult(snapshotText(40_000)), snapshotContext, gc);
  const listSmall = measure(textResult(pageListText(1_000)), pageListContext(1_000), gc);
  const listLarge = measure(textResult(pageListText(4_000)), pageListContext(4_000), gc);
  const growth = large.msPerOp.median / small.msPerOp.median;
  const listGrowth = listLarge.msPerOp.median / listSmall.msPerOp.median;
  return [
    {
      name: 'rewrite: 10k-node snapshot',
      figure: small.usPerKib,
      baseline: null,
      unit: 'µs/KiB',
      ratio: null,
      goal: { kind: 'info' },
      note: `rewriteResponse (sections, epoch uid set, tokens) over ${small.kib.toFixed(0)} KiB of take_snapshot text: ${small.msPerOp.median.toFixed(2)} ms per response; heap growth ${bytes(small.bytesPerKib)} of input (includes the rewritten text itself, ~1 KiB per KiB plus token growth).`,
    },
    {
      name: 'rewrite: 40k vs 10k nodes',
      figure: large.msPerOp,
      baseline: small.msPerOp,
      unit: 'ms',
      ratio: growth,
      goal: { kind: 'max', limit: 4.4 },
      note: `Linearity: 4× the nodes (${large.kib.toFixed(0)} vs ${small.kib.toFixed(0)} KiB) should cost ~4× the time (goal allows 10%). ${large.usPerKib.median.toFixed(2)} µs/KiB at 40k nodes; heap growth ${bytes(large.bytesPerKib)}.`,
    },
    {
      name: 'page-list filter: 1k tabs',
      figure: listSmall.usPerKib,
      baseline: null,
      unit: 'µs/KiB',
      ratio: null,
      goal: { kind: 'info' },
      note: `list_pages response of 1,000 tabs (${listSmall.kib.toFixed(0)} KiB), session owns one in four: ${listSmall.msPerOp.median.toFixed(3)} ms per response; heap growth ${bytes(listSmall.bytesPerKib)}.`,
    },
    {
      name: 'page-list filter: 4k vs 1k tabs',
      figure: listLarge.msPerOp,
      baseline: listSmall.msPerOp,
      unit: 'ms',
      ratio: listGrowth,
      goal: { kind: 'max', limit: 4.4 },
      note: `Linearity: 4× the tabs should cost ~4× the time (goal allows 10%). ${listLarge.usPerKib.median.toFixed(2)} µs/KiB at 4k tabs.`,
    },
  ];
}
