import { TabmuxError } from '../../../shared/errors.js';
import type { Session, SessionLookup } from './Session.js';

/**
 * Performance traces are process-wide in upstream: one recording at a time per worker, and `performance_analyze_insight`
 * reads the worker's latest trace (its URLs, whatever the page put in them). So a trace belongs to the session that
 * started it: others get a clear "busy" while it records and cannot stop or read it.
 */
export interface TraceState {
  owner: string | null;
  recording: boolean;
}

export const TRACE_TOOLS = new Set(['performance_start_trace', 'performance_stop_trace', 'performance_analyze_insight']);

/** Refuses a trace call another session's trace stands in the way of; says whether a stale recording must be stopped first. */
export function checkTraceCall(state: TraceState, session: Session, tool: string, sessionById: SessionLookup): { stopOrphan: boolean } {
  const ownerAlive = state.owner !== null && sessionById(state.owner) !== undefined;
  const mine = state.owner === session.id;
  if (tool === 'performance_start_trace') {
    if (state.recording && !mine && ownerAlive) {
      throw new TabmuxError('resource_busy', 'another session is recording a performance trace on this worker, and upstream records one at a time; try again in a while');
    }
    return { stopOrphan: state.recording && !mine && !ownerAlive };
  }
  if (!mine) {
    throw new TabmuxError(
      'unknown_page',
      tool === 'performance_stop_trace'
        ? 'this session is not recording a performance trace; start one with performance_start_trace'
        : 'this session has no recorded performance trace to analyze; record one with performance_start_trace',
    );
  }
  return { stopOrphan: false };
}

/** Notes what a successful trace call changed. */
export function noteTraceCall(state: TraceState, session: Session, tool: string, args: Readonly<Record<string, unknown>>): void {
  if (tool === 'performance_start_trace') {
    state.owner = session.id;
    // With autoStop (the default) the recording ends inside the same call.
    state.recording = args['autoStop'] === false;
  } else if (tool === 'performance_stop_trace') {
    state.recording = false;
  }
}
