import type { QueueEntry, SessionInfo } from '../../shared/model.js';
import type { ServerState } from './ServerState.js';
import { sessionName } from './sessionRows.js';

export interface QueueRow {
  callId: number;
  sessionId: string;
  sessionName: string;
  tool: string;
  worker: number;
  state: QueueEntry['state'];
  /** Time spent waiting: until it started, or until now while still queued. */
  waitedMs: number;
  /** Time spent running so far; null while queued. */
  runningMs: number | null;
}

/** Keeps the daemon's order, which is the order calls will run in. `now` drives the live timers. */
export function queueRows(queue: readonly QueueEntry[] | undefined, sessions: Record<string, SessionInfo> | undefined, now: number): QueueRow[] {
  return (queue ?? []).map((entry) => {
    const session = sessions?.[entry.sessionId];
    return {
      callId: entry.callId,
      sessionId: entry.sessionId,
      sessionName: sessionName(session ?? { id: entry.sessionId, label: null }),
      tool: entry.tool,
      worker: entry.worker,
      state: entry.state,
      waitedMs: Math.max(0, (entry.startedAt ?? now) - entry.enqueuedAt),
      runningMs: entry.startedAt === null ? null : Math.max(0, now - entry.startedAt),
    };
  });
}

export function selectQueueRows(state: ServerState, profile: string, now: number): QueueRow[] {
  return queueRows(state.queue[profile], state.sessions[profile], now);
}
