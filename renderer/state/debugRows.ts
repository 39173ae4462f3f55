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
  inFlight: number;
  lastError: string | null;
  selectedPageId: number | null;
  selectedTitle: string | null;
  sessions: DebugSession[];
}

export function debugRows(
  workers: readonly WorkerInfo[],
  sessions: Record<string, SessionInfo> | undefined,
  tabs: readonly TabInfo[] | undefined,
): DebugWorker[] {
  const titleOf = (worker: number, pageId: number | null): string | null =>
    pageId === null ? null : (tabs?.find((tab) => tab.worker === worker && tab.pageId === pageId)?.title ?? null);
  const all = Object.values(sessions ?? {}).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  return [...workers]
    .sort((a, b) => a.index - b.index)
    .map((worker) => ({
      index: worker.index,
      state: worker.state,
      pid: worker.pid,
      inFlight: worker.inFlight,
      lastError: worker.lastError,
      selectedPageId: worker.selectedPageId,
      selectedTitle: titleOf(worker.index, worker.selectedPageId),
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
