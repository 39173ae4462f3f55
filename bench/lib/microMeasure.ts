import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { interleavePairs } from './interleave.js';
import { summarize, type Summary } from './stats.js';

const SAMPLES = 25;
const SAMPLE_MS = 40;
/** Heap growth hardly varies from one run of the same input to the next; fewer samples keep the 40k-node rows short. */
const HEAP_SAMPLES = 9;

/** A CPU-bound operation on an input of `kib` KiB; `op` returns something of its output, so the work is not dropped. */
export interface MicroSubject<C> {
  kib: number;
  makeContext: () => C;
  op: (context: C) => number;
}

export interface Measured {
  kib: number;
  msPerOp: Summary;
  usPerKib: Summary;
  /** Heap growth of one operation after a collection, per KiB of input; undefined when gc is not available. */
  bytesPerKib: Summary | undefined;
}

/**
 * A way to collect garbage without starting node with --expose-gc: the flag can be set at run time, and a fresh
 * context then has `gc`. Without it the allocation figures would include whatever garbage was lying around.
 */
export function exposeGc(): (() => void) | undefined {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  return isCallable(gc) ? () => gc() : undefined;
}

/** V8's gc takes no arguments and returns nothing we use. */
function isCallable(value: unknown): value is () => void {
  return typeof value === 'function';
}

let sink = 0;

function keep(value: number): void {
  sink += value;
  if (sink < 0) {
    throw new Error('unreachable: keeps the results alive');
  }
}

/** Warms the operation up for ~300 ms and returns how many make a ~40 ms batch, so timer resolution does not matter. */
function calibrate<C>(subject: MicroSubject<C>): number {
  const start = performance.now();
  let warm = 0;
  while (performance.now() - start < 300 || warm < 5) {
    keep(subject.op(subject.makeContext()));
    warm++;
  }
  return Math.max(1, Math.round(SAMPLE_MS / ((performance.now() - start) / warm)));
}

/** Milliseconds per operation over one batch, on one fresh context. */
function batch<C>(subject: MicroSubject<C>, reps: number): number {
  const context = subject.makeContext();
  const t0 = performance.now();
  for (let rep = 0; rep < reps; rep++) {
    keep(subject.op(context));
  }
  return (performance.now() - t0) / reps;
}

function heapGrowth<C>(subject: MicroSubject<C>, gc: (() => void) | undefined): Summary | undefined {
  if (!gc) {
    return undefined;
  }
  const deltas: number[] = [];
  for (let sample = 0; sample < HEAP_SAMPLES; sample++) {
    const context = subject.makeContext();
    gc();
    const before = process.memoryUsage().heapUsed;
    keep(subject.op(context));
    deltas.push((process.memoryUsage().heapUsed - before) / subject.kib);
  }
  return summarize(deltas);
}

function measured<C>(subject: MicroSubject<C>, times: readonly number[], gc: (() => void) | undefined): Measured {
  return { kib: subject.kib, msPerOp: summarize(times), usPerKib: summarize(times.map((ms) => (ms * 1000) / subject.kib)), bytesPerKib: heapGrowth(subject, gc) };
}

/**
 * Two operations timed in alternating batches (A B, B A, ...), as the browser rows pair their sides: a ratio of the
 * two is then not skewed by the machine getting busier or quieter between them (other work on 2 shared cores).
 */
export async function measurePair<A, B>(a: MicroSubject<A>, b: MicroSubject<B>, gc: (() => void) | undefined): Promise<{ a: Measured; b: Measured }> {
  const repsA = calibrate(a);
  const repsB = calibrate(b);
  const samples = await interleavePairs(
    SAMPLES,
    () => Promise.resolve(batch(a, repsA)),
    () => Promise.resolve(batch(b, repsB)),
  );
  return { a: measured(a, samples.a, gc), b: measured(b, samples.b, gc) };
}
