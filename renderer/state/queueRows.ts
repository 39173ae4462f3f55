import { SYSTEM_LANE_ID, type QueueEntry, type SessionInfo } from '../../shared/model.js';
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
  /** tabmux's own housekeeping (listing tabs, closing pages): shown, but not cancellable. */
  internal: boolean;
}

/** Keeps the daemon's order, which is the order calls will run in. `now` drives the live timers. */
export function queueRows(queue: readonly QueueEntry[] | undefined, sessions: Record<string, SessionInfo> | undefined, now: number): QueueRow[] {
  return (queue ?? []).map((entry) => {
    const session = sessions?.[entry.sessionId];
    const internal = entry.sessionId === SYSTEM_LANE_ID;
    return {
      callId: entry.callId,
      sessionId: entry.sessionId,
      sessionName: internal ? 'tabmux (housekeeping)' : sessionName(session ?? { id: entry.sessionId, label: null }),
      internal,
      tool: entry.tool,
      worker: entry.worker,
      state: entry.state,
      waitedMs: Math.max(0, (entry.startedAt ?? now) - entry.enqueuedAt),
      runningMs: entry.startedAt === null ? null : Math.max(0, now - entry.startedAt),
    };
  });
}
