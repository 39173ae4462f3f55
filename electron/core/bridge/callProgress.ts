import { isRecord } from '../../../shared/isRecord.js';
import type { CancelSignal } from './CancelSignal.js';

/**
 * How often a tool call still running tells a client that asked for progress (a `progressToken`) so: a client that
 * resets its own time limit on progress then waits for a call as long as it runs (a question to a person, a call a
 * policy holds for a yes), and one that gives up after a minute (the MCP SDK's default) hears from it well before.
 */
export const PROGRESS_EVERY_MS = 10_000;

/**
 * While a tool call runs, a client that gave it a progress token (in `params._meta`) hears every `everyMs` that it
 * still does, through `notify`; returns what stops that (the call's answer; a cancel stops it too).
 */
export function tellProgress(params: unknown, signal: CancelSignal, everyMs: number, notify: (params: Record<string, unknown>) => void): () => void {
  const meta = isRecord(params) ? params['_meta'] : undefined;
  const progressToken = isRecord(meta) ? meta['progressToken'] : undefined;
  if (typeof progressToken !== 'string' && typeof progressToken !== 'number') {
    return () => undefined;
  }
  let progress = 0;
  const timer = setInterval(() => {
    progress++;
    notify({ progressToken, progress, message: `still running after ${Math.round((progress * everyMs) / 1000)} s` });
  }, everyMs);
  // The call itself keeps the bridge alive while it runs; this timer never does.
  timer.unref();
  const stop = (): void => clearInterval(timer);
  signal.onCancel(stop);
  return stop;
}
