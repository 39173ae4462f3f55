import type { PageOrigin, SessionInfo, TabInfo } from '../../shared/model.js';
import type { ServerState } from './ServerState.js';
import { sessionName } from './sessionRows.js';

export interface SessionOption {
  id: string;
  name: string;
}

export interface TabRow {
  /** Unique within a profile: page ids are per worker. */
  key: string;
  pageId: number;
  worker: number;
  /** The id the owning session knows this tab by (on its own worker); release takes it. */
  ownerPageId: number | null;
  /** The worker that runs the tab's calls: the owning session's; null when no session owns it. */
  ownerWorker: number | null;
  title: string;
  url: string;
  owner: SessionOption | null;
  origin: PageOrigin | null;
  upstreamSelected: boolean;
  /** The browser window holding the tab; null when the daemon could not tell. */
  windowId: number | null;
  /** Chrome's id of the tab (what its live picture is asked by); null when the daemon did not say. */
  tabId: string | null;
  /** How the tab's page process ended (`crashed`, `oom`...), while Chrome shows its crash page; null while it runs. */
  crashed: string | null;
  /** Sessions this tab can be attached to: any session (the daemon finds the tab on the session's own worker). */
  attachTo: SessionOption[];
}

export function tabKey(worker: number, pageId: number): string {
  return `${worker}:${pageId}`;
}

export function tabRows(tabs: readonly TabInfo[] | undefined, sessions: Record<string, SessionInfo> | undefined): TabRow[] {
  const all = Object.values(sessions ?? {}).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  return [...(tabs ?? [])]
    .sort((a, b) => a.worker - b.worker || a.pageId - b.pageId)
    .map((tab) => {
      const owner = tab.owner === null ? null : (sessions?.[tab.owner] ?? null);
      return {
        key: tabKey(tab.worker, tab.pageId),
        pageId: tab.pageId,
        worker: tab.worker,
        ownerPageId: tab.ownerPageId,
        ownerWorker: tab.owner === null ? null : (tab.ownerWorker ?? null),
        title: tab.title,
        url: tab.url,
        // An owner the daemon names but has not reported yet still shows, by id.
        owner: tab.owner === null ? null : { id: tab.owner, name: owner ? sessionName(owner) : sessionName({ id: tab.owner, label: null }) },
        origin: tab.origin,
        upstreamSelected: tab.upstreamSelected,
        windowId: tab.windowId,
        tabId: tab.tabId ?? null,
        crashed: tab.crashed ?? null,
        attachTo: all.map((session) => ({ id: session.id, name: sessionName(session) })),
      };
    });
}

/** The tabs of one browser window, as the dashboard shows them under a heading. */
export interface TabGroup {
  key: string;
  windowId: number | null;
  /** The heading: the window, and the sessions whose tabs it holds (with a window per session, one). */
  title: string;
  rows: TabRow[];
}

/** Tabs grouped by window, windows in the order of their first tab; tabs whose window is unknown come last. */
export function tabGroups(rows: readonly TabRow[]): TabGroup[] {
  const groups = new Map<number | null, TabRow[]>();
  for (const row of [...rows.filter((row) => row.windowId !== null), ...rows.filter((row) => row.windowId === null)]) {
    groups.set(row.windowId, [...(groups.get(row.windowId) ?? []), row]);
  }
  return [...groups].map(([windowId, grouped]) => {
    const owners = [...new Set(grouped.map((row) => row.owner?.name ?? 'unowned'))];
    return {
      key: windowId === null ? 'window:unknown' : `window:${windowId}`,
      windowId,
      title: `${windowId === null ? 'Window unknown' : `Window ${windowId}`} · ${owners.join(', ')}`,
      rows: grouped,
    };
  });
}

export function selectTabRows(state: ServerState, profile: string): TabRow[] {
  return tabRows(state.tabs[profile], state.sessions[profile]);
}
