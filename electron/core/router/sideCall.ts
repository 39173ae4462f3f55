import { TabmuxError } from '../../../shared/errors.js';
import type { ToolResult } from '../../../shared/protocol.js';
import type { Upstream } from '../upstream/UpstreamClient.js';
import type { Worker } from './Worker.js';
import { withDeadline } from '../../../shared/withDeadline.js';

/**
 * How long one of the router's own upstream calls (mapping a page to its tab, listing pages) may take. They answer in
 * milliseconds unless upstream waits on a page whose renderer is blocked (a dialog), which lasts as long as the page
 * keeps it: without a bound, the worker's whole queue would wait on one page.
 */
export const SIDE_CALL_DEADLINE_MS = 5_000;

/**
 * A fresh upstream connects to the browser in its first call (upstream bounds that at 60 s itself); a slow start is
 * not a stuck page, so the first call it answers gets longer.
 */
export const FIRST_SIDE_CALL_DEADLINE_MS = 30_000;

/** What a side call comes to when its deadline passes first. */
const EXPIRED = Symbol('expired');

/** Upstreams that answered a side call: they are connected, so a slow answer means a stuck page. */
const connected = new WeakSet<Upstream>();
/** Upstreams that let a side call run out: upstream runs one call at a time, so every later one would wait too. */
const stuck = new WeakSet<Upstream>();

/**
 * One of the router's own upstream calls, bounded. On expiry the call counts as failed (`timeout`), and a worker that
 * is serving has its upstream replaced (`Worker.recycle`): upstream cannot drop the call it is stuck in, and holds
 * every later call behind it. An upstream still being prepared (its sessions' tabs being found) is not replaced from
 * here; its later side calls fail at once instead, so preparing it ends promptly.
 */
export async function sideCall(worker: Worker, tool: string, args: Record<string, unknown>): Promise<ToolResult> {
  const upstream = worker.upstream;
  if (upstream && stuck.has(upstream)) {
    throw stuckError(worker, tool);
  }
  const deadlineMs = upstream && connected.has(upstream) ? SIDE_CALL_DEADLINE_MS : FIRST_SIDE_CALL_DEADLINE_MS;
  const call = worker.call(tool, args);
  const outcome = await withDeadline(call, deadlineMs, EXPIRED);
  if (outcome !== EXPIRED) {
    if (worker.upstream) {
      connected.add(worker.upstream);
    }
    return outcome;
  }
  // Upstream answers the abandoned call once the page lets it, or fails it when it is replaced: nobody waits for it.
  call.catch(() => undefined);
  const held = worker.upstream;
  const late = `tabmux's own ${tool} on upstream worker ${worker.index} got no answer within ${deadlineMs / 1000} s (a page it asked about is stuck, behind a dialog for one)`;
  if (!held) {
    throw new TabmuxError('timeout', `${late}; retry the call`);
  }
  stuck.add(held);
  if (worker.state !== 'ready') {
    throw new TabmuxError('timeout', `${late}; retry the call`);
  }
  await worker.recycle(late);
  throw new TabmuxError('timeout', `${late}, so the worker was replaced; retry the call`);
}

function stuckError(worker: Worker, tool: string): TabmuxError {
  return new TabmuxError('timeout', `upstream worker ${worker.index} is stuck in an earlier call, so ${tool} was not sent; retry the call`);
}

/** What a side step comes to, or `fallback` when a side call in it timed out (the step is then left for later). */
export async function unlessTimedOut<T, const F>(step: Promise<T>, fallback: F): Promise<T | F> {
  try {
    return await step;
  } catch (error) {
    if (error instanceof TabmuxError && error.code === 'timeout') {
      return fallback;
    }
    throw error;
  }
}
