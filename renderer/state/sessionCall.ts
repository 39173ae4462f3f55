import type { ActivityOutcome } from '../../shared/activity.js';
import type { QueueEntry, SessionInfo } from '../../shared/model.js';

/**
 * What a session is doing now, or did last, for its row in the session list: the call a worker runs for it, else
 * the oldest one it has waiting, else its last answered call, else nothing yet.
 */
export type SessionCall =
  | { kind: 'running'; tool: string; since: number }
  | { kind: 'queued'; tool: string; since: number }
  | { kind: 'last'; tool: string; outcome: ActivityOutcome; endedAt: number; durationMs: number }
  | { kind: 'none' };

export function sessionCall(session: Pick<SessionInfo, 'id' | 'lastCall'>, queue: readonly QueueEntry[] | undefined): SessionCall {
  let queued: QueueEntry | undefined;
  for (const entry of queue ?? []) {
    if (entry.sessionId !== session.id) {
      continue;
    }
    if (entry.state === 'running') {
      return { kind: 'running', tool: entry.tool, since: entry.startedAt ?? entry.enqueuedAt };
    }
    if (!queued || entry.enqueuedAt < queued.enqueuedAt) {
      queued = entry;
    }
  }
  if (queued) {
    return { kind: 'queued', tool: queued.tool, since: queued.enqueuedAt };
  }
  const last = session.lastCall;
  if (last) {
    return { kind: 'last', tool: last.tool, outcome: last.outcome, endedAt: last.endedAt, durationMs: last.endedAt - last.at };
  }
  return { kind: 'none' };
}
