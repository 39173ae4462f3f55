import type { SessionActivity, SessionInfo, SessionLastCall, SessionPage, TabInfo } from '../../shared/model.js';
import { shortId } from '../format/shortId.js';
import type { ServerState } from './ServerState.js';

export interface SessionRow {
  id: string;
  shortId: string;
  /** The label, or the short id when the client gave none. */
  name: string;
  label: string | null;
  activity: SessionActivity;
  paused: boolean;
  owned: boolean;
  worker: number;
  currentPage: SessionPage | null;
  pageCount: number;
  createdAt: number;
  lastUsedAt: number;
  queued: number;
  running: number;
  lastCall: SessionLastCall | null;
}

export function sessionName(session: Pick<SessionInfo, 'id' | 'label'>): string {
  return session.label ?? shortId(session.id);
}

export function toSessionRow(session: SessionInfo): SessionRow {
  const currentPage = session.pages.find((page) => page.pageId === session.currentPageId) ?? null;
  return {
    id: session.id,
    shortId: shortId(session.id),
    name: sessionName(session),
    label: session.label,
    activity: session.paused ? 'paused' : session.activity,
    paused: session.paused,
    owned: session.owned,
    worker: session.worker,
    currentPage,
    pageCount: session.pages.length,
    createdAt: session.createdAt,
    lastUsedAt: session.lastUsedAt,
    queued: session.queued,
    running: session.running,
    lastCall: session.lastCall ?? null,
  };
}

/** Oldest first: rows keep their place while sessions work, which matters more than recency when scanning. */
export function sessionRows(sessions: Record<string, SessionInfo> | undefined): SessionRow[] {
  return Object.values(sessions ?? {})
    .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
    .map(toSessionRow);
}

export function selectSessionRows(state: ServerState, profile: string): SessionRow[] {
  return sessionRows(state.sessions[profile]);
}

/** Chrome tab ids of sessions' pages, by `<session>\n<page id on the session's worker>`. */
export function currentTabIds(tabs: readonly TabInfo[] | undefined): Map<string, string> {
  const ids = new Map<string, string>();
  for (const tab of tabs ?? []) {
    if (tab.owner !== null && tab.tabId !== undefined) {
      ids.set(`${tab.owner}\n${tab.ownerPageId ?? tab.pageId}`, tab.tabId);
    }
  }
  return ids;
}
