import type { SessionInfo, TabInfo, WorkerInfo, WorkerState } from '../../shared/model.js';
import { sessionName } from './sessionRows.js';

export interface DebugSession {
  id: string;
  name: string;
  currentPageId: number | null;
  currentTitle: string | null;
  /** Whether upstream's selected page is this session's current page. A mismatch is normal: routing never uses it. */
  matchesUpstream: boolean;
  /** A session with a page that upstream has not selected; worth pointing out when debugging, never an error. */
  differs: boolean;
}

export interface DebugWorker {
  index: number;
  state: WorkerState;
  pid: number | null;
  /** Its process's resident memory in MiB, when the daemon reads it. */
  residentMb: number | null;
  inFlight: number;
  lastError: string | null;
  selectedPageId: number | null;
  selectedTitle: string | null;
  sessions: DebugSession[];
  /** The call the worker runs now: whose, which tool, since when. */
  busy: { sessionName: string; tool: string; since: number } | null;
}

/** The workers worth a card: the first, and every one that runs, starts or serves a session. */
function shown(worker: WorkerInfo, sessions: readonly SessionInfo[]): boolean {
  return worker.index === 0 || worker.pid !== null || worker.state !== 'stopped' || sessions.some((session) => session.worker === worker.index);
}

export function debugRows(
  workers: readonly WorkerInfo[],
  sessions: Record<string, SessionInfo> | undefined,
  tabs: readonly TabInfo[] | undefined,
): DebugWorker[] {
  const titleOf = (worker: number, pageId: number | null): string | null =>
    pageId === null ? null : (tabs?.find((tab) => tab.worker === worker && tab.pageId === pageId)?.title ?? null);
  const all = Object.values(sessions ?? {}).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const nameOf = (id: string): string => {
    const session = all.find((candidate) => candidate.id === id);
    return session ? sessionName(session) : id;
  };
  return [...workers]
    .filter((worker) => shown(worker, all))
    .sort((a, b) => a.index - b.index)
    .map((worker) => ({
      index: worker.index,
      state: worker.state,
      pid: worker.pid,
      residentMb: worker.residentMb ?? null,
      inFlight: worker.inFlight,
      lastError: worker.lastError,
      selectedPageId: worker.selectedPageId,
      selectedTitle: titleOf(worker.index, worker.selectedPageId),
      busy: worker.busy ? { sessionName: nameOf(worker.busy.sessionId), tool: worker.busy.tool, since: worker.busy.since } : null,
      sessions: all
        .filter((session) => session.worker === worker.index)
        .map((session) => ({
          id: session.id,
          name: sessionName(session),
          currentPageId: session.currentPageId,
          currentTitle:
            session.pages.find((page) => page.pageId === session.currentPageId)?.title ?? titleOf(worker.index, session.currentPageId),
          matchesUpstream: session.currentPageId !== null && session.currentPageId === worker.selectedPageId,
          differs: session.currentPageId !== null && session.currentPageId !== worker.selectedPageId,
        })),
    }));
}
