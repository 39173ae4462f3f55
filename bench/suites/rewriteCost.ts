import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { rewriteResponse, type RewriteContext } from '../../electron/core/router/responseRewriter.js';
import { replyOf, UPSTREAM_VERSION } from '../../electron/core/upstream/upstreamReply.js';
import { asToolResult, textResult } from '../../shared/toolResult.js';
import type { ToolResult } from '../../shared/protocol.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { summarize, type Summary } from '../lib/stats.js';
import { pageListContext, snapshotContext } from '../lib/rewriteContexts.js';
import { pageListReply, snapshotReply } from '../lib/syntheticReplies.js';

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
  /** Size of the reply's text, the part agents read. */
  kib: number;
  msPerOp: Summary;
  usPerKib: Summary;
  bytesPerKib: Summary | undefined;
}

/**
 * Time per operation (batches of ~40 ms, so timer resolution does not matter) and, with `gc`, heap growth per
 * operation after a collection. `op` gets a fresh context per batch and returns something that keeps its output alive.
 */
function measure(kib: number, makeContext: () => RewriteContext, op: (context: RewriteContext) => number, gc: (() => void) | undefined): Measured {
  let sink = 0;
  const start = performance.now();
  let warm = 0;
  while (performance.now() - start < 300 || warm < 5) {
    sink += op(makeContext());
    warm++;
  }
  const perOp = (performance.now() - start) / warm;
  const reps = Math.max(1, Math.round(SAMPLE_MS / perOp));
  const times: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const context = makeContext();
    const t0 = performance.now();
    for (let rep = 0; rep < reps; rep++) {
      sink += op(context);
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
      sink += op(context);
      deltas.push((process.memoryUsage().heapUsed - before) / kib);
    }
    bytesPerKib = summarize(deltas);
  }
  if (sink < 0) {
    throw new Error('unreachable: keeps the results alive');
  }
  const msPerOp = summarize(times);
  return { kib, msPerOp, usPerKib: summarize(times.map((ms) => (ms * 1000) / kib)), bytesPerKib };
}

function textKib(result: ToolResult): number {
  return Buffer.byteLength(result.content[0]?.text ?? '') / 1024;
}

function rewriting(input: ToolResult): (context: RewriteContext) => number {
  return (context) => rewriteResponse(input, context).content.length;
}

/** One JSON hop: the daemon writes a result to the client's socket, the client parses it. */
function hop(result: ToolResult): number {
  const parsed: unknown = JSON.parse(JSON.stringify(result));
  return typeof parsed === 'object' ? 1 : 0;
}

function bytes(value: Summary | undefined): string {
  return value === undefined ? 'n/a (no gc)' : `${value.median.toFixed(0)} B/KiB`;
}

/**
 * The router's per-response work in isolation, on replies built the way the pinned upstream builds them with
 * structured content: uid tokens over snapshots of 10,000 and 40,000 nodes, and page-list filtering over 1,000 and
 * 4,000 tabs. Both must stay linear in the response size and allocate little.
 */
export function rewriteCost(log: (message: string) => void): Row[] {
  log('rewrite cost: rewriteResponse over upstream-shaped snapshots and page lists');
  const gc = exposeGc();
  const snapshot = snapshotReply(10_000);
  const bigSnapshot = snapshotReply(40_000);
  assertStructured(snapshot, 'snapshot');
  assertStructured(pageListReply(4), 'page list');
  const small = measure(textKib(snapshot), snapshotContext, rewriting(snapshot), gc);
  const large = measure(textKib(bigSnapshot), snapshotContext, rewriting(bigSnapshot), gc);
  const pages = pageListReply(1_000);
  const bigPages = pageListReply(4_000);
  const listSmall = measure(textKib(pages), pageListContext(1_000), rewriting(pages), gc);
  const listLarge = measure(textKib(bigPages), pageListContext(4_000), rewriting(bigPages), gc);
  const growth = large.msPerOp.median / small.msPerOp.median;
  const listGrowth = listLarge.msPerOp.median / listSmall.msPerOp.median;

  // What the daemon does with the reply from upstream's stdio line to the agent's parse, with and without reading it.
  const structuredLine = JSON.stringify(snapshot);
  const textLine = JSON.stringify(textResult(snapshot.content[0]?.text ?? ''));
  const read = measure(small.kib, snapshotContext, (context) => hop(rewriteResponse(parseResult(structuredLine), context)), undefined);
  const untouched = measure(small.kib, snapshotContext, () => hop(parseResult(textLine)), undefined);
  const lines = (snapshot.content[0]?.text ?? '').split('\n').length - 1;
  const structuredKib = Buffer.byteLength(JSON.stringify(snapshot.structuredContent)) / 1024;
  const path = `the structured path (the tree read from structuredContent, the snapshot cut off the text by its exact rendering with upstream's formatter, the epoch's uid set, the tree rendered again with session tokens)`;
  return [
    {
      name: 'rewrite: 10k-node snapshot',
      figure: small.usPerKib,
      baseline: null,
      unit: 'µs/KiB',
      ratio: null,
      goal: { kind: 'info' },
      note: `rewriteResponse over a take_snapshot reply built as upstream builds it with --experimentalStructuredContent: a 10,000-node tree (list items of link, button and text field; labels as StaticText children, which the text leaves out) in structuredContent and its text, ${lines} lines, ${small.kib.toFixed(0)} KiB (the tree's JSON: ${structuredKib.toFixed(0)} KiB). It runs ${path}: ${small.msPerOp.median.toFixed(2)} ms per response (the figure is per KiB of text); heap growth ${bytes(small.bytesPerKib)} of text (includes the rewritten text itself, ~1 KiB per KiB plus token growth).`,
    },
    {
      name: 'rewrite: 40k vs 10k nodes',
      figure: large.msPerOp,
      baseline: small.msPerOp,
      unit: 'ms',
      ratio: growth,
      goal: { kind: 'max', limit: 4.4 },
      note: `Linearity of the same structured path: 4× the nodes (tree and text both 4×: ${large.kib.toFixed(0)} vs ${small.kib.toFixed(0)} KiB of text) should cost ~4× the time (goal allows 10%). ${large.usPerKib.median.toFixed(2)} µs/KiB at 40k nodes; heap growth ${bytes(large.bytesPerKib)}.`,
    },
    {
      name: 'structured rewrite vs pass-through, 10k-node snapshot',
      figure: read.msPerOp,
      baseline: untouched.msPerOp,
      unit: 'ms',
      ratio: ratio(read.msPerOp, untouched.msPerOp),
      goal: { kind: 'info' },
      note: `The daemon's CPU per response for the 10k-node reply, from upstream's JSON line to the agent's parse. Figure: parse the line with structuredContent (${(Buffer.byteLength(structuredLine) / 1024).toFixed(0)} KiB), rewriteResponse, serialize the result for the socket, the client parses it. Baseline: a router that passes upstream's reply through untouched: parse a text-only line (${(Buffer.byteLength(textLine) / 1024).toFixed(0)} KiB), serialize it, the client parses it. Added: ${(read.msPerOp.median - untouched.msPerOp.median).toFixed(2)} ms per snapshot.`,
    },
    {
      name: 'page-list filter: 1k tabs',
      figure: listSmall.usPerKib,
      baseline: null,
      unit: 'µs/KiB',
      ratio: null,
      goal: { kind: 'info' },
      note: `rewriteResponse over a list_pages reply of 1,000 tabs as upstream builds it (structuredContent.pages and its \`## Pages\` text, ${listSmall.kib.toFixed(0)} KiB), session owns one in four: the list checked against its rebuilt text, the router's pages synced from the data, the session's lines rendered from it. ${listSmall.msPerOp.median.toFixed(3)} ms per response; heap growth ${bytes(listSmall.bytesPerKib)}.`,
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

/**
 * The rows mean something only while the router takes the structured path on these replies: a reply whose text no
 * longer matches its data (an upstream formatter change) would be rebuilt or rejected instead. Fail the suite then.
 */
function assertStructured(result: ToolResult, what: string): void {
  const reply = replyOf(result);
  if (reply.rebuilt || (reply.snapshot === undefined && reply.pages === undefined)) {
    throw new Error(`the synthetic ${what} reply is not read through its structured data; rebuild it the way upstream ${UPSTREAM_VERSION} does`);
  }
}

/** The result the MCP SDK hands the daemon for an upstream line (the SDK's schema check is left out on both sides). */
function parseResult(line: string): ToolResult {
  const parsed: unknown = JSON.parse(line);
  return asToolResult(parsed);
}
