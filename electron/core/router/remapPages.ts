import { TabmuxError } from '../../../shared/errors.js';
import type { Upstream } from '../upstream/UpstreamClient.js';
import type { Session } from './Session.js';
import type { TabIdentity } from './TabIdentity.js';
import type { Worker } from './Worker.js';

/**
 * A restarted upstream numbers the same tabs differently. The sessions pinned to the worker keep their tabs (found
 * again by Chrome tab id); their old snapshot tokens stop working, and tabs that are gone are reported to their
 * session as lost. `upstream` is the new process, asked before it takes any call.
 */
export async function remapPages(worker: Worker, upstream: Upstream, sessions: readonly Session[], tabs: TabIdentity): Promise<void> {
  worker.owners.clear();
  worker.tabIds.clear();
  if (sessions.length === 0) {
    return;
  }
  const previous = worker.upstream;
  worker.upstream = upstream;
  try {
    // Only the sessions' own tabs are looked up: asking upstream about a page has it follow that page from then on
    // (its console, its network), and a fresh worker should not follow every tab of the browser.
    const byTab = await tabs.pageIdsOfTabs(worker, knownTabs(sessions));
    for (const session of sessions) {
      setAsideHeld(session, tabs);
      renumber(session, worker, byTab, 'the browser connection was restarted');
    }
  } finally {
    worker.upstream = previous;
  }
}

/**
 * Gives a session's pages the ids `worker` knows their tabs by (`byTab`), and tells the agent why (`why`): tabs no
 * longer listed are reported lost, and every page's snapshot tokens go stale.
 */
export function renumber(session: Session, worker: Worker, byTab: ReadonlyMap<string, number>, why: string): void {
  const lost: string[] = [];
  const pages = [...session.pages.values()];
  // Move every page out of the way first: old and new ids may overlap.
  session.pages.clear();
  const current = session.currentPageId;
  session.currentPageId = null;
  for (const page of pages) {
    const newId = page.tabId === null ? undefined : byTab.get(page.tabId);
    if (newId === undefined) {
      lost.push(`${page.pageId} (${page.url || 'no url'})`);
      continue;
    }
    const wasCurrent = page.pageId === current;
    page.pageId = newId;
    page.snapshotEpoch = null;
    page.snapshotUids = new Set();
    session.pages.set(newId, page);
    worker.owners.set(newId, session.id);
    if (wasCurrent) {
      session.currentPageId = newId;
    }
  }
  if (session.currentPageId === null) {
    const next = [...session.pages.values()].sort((a, b) => b.lastSelectedAt - a.lastSelectedAt)[0];
    session.currentPageId = next?.pageId ?? null;
  }
  session.notes.push(
    lost.length > 0
      ? `Note: ${why}; your page(s) ${lost.join(', ')} were lost. Page-scoped tools open a fresh tab if you have none. Take a new snapshot before using uids.`
      : `Note: ${why}; your pages were kept but may have new ids (see list_pages). Take a new snapshot before using uids.`,
  );
}

/**
 * A fresh upstream cannot be asked about a tab a dialog holds (see `HeldTabs`), so such pages of a session have no
 * id there yet. They are not lost: they wait as the session's pending tabs, and are its pages again once the dialog
 * is closed (see `TabIdentity.setAside`).
 */
function setAsideHeld(session: Session, tabs: TabIdentity): void {
  const held = tabs.held();
  for (const page of [...session.pages.values()]) {
    if (page.tabId !== null && held.has(page.tabId)) {
      tabs.setAside(session, page);
    }
  }
}

/**
 * Moves a session's pages from worker `from` to worker `to`, which must be in its queue slot: `to`'s ids for the
 * same tabs replace the old ones, `from` forgets them, and the agent is told why (`since`, see `MOVED_SINCE`). Runs
 * before the session's worker changes. A session with a page a dialog may hold stays (throws `dialog_open`): `to`
 * could not be asked which of its pages that tab is.
 */
export async function movePages(session: Session, from: Worker, to: Worker, tabs: TabIdentity, since: string): Promise<void> {
  if (session.ended || session.pages.size === 0) {
    return;
  }
  const held = tabs.held();
  if ([...session.pages.values()].some((page) => page.tabId !== null && held.has(page.tabId))) {
    throw new TabmuxError('dialog_open', 'a page of the session waits on a dialog, so its tab cannot be found on another worker');
  }
  const oldIds = [...session.pages.keys()];
  const byTab = await tabs.pageIdsOfTabs(to, knownTabs([session]));
  renumber(session, to, byTab, `your calls moved to another upstream worker, since ${since}`);
  for (const pageId of oldIds) {
    if (from.owners.get(pageId) === session.id) {
      from.owners.delete(pageId);
    }
  }
}

/** The sessions' pages whose Chrome tab id is known: tab id -> the URL the session last saw there. */
function knownTabs(sessions: readonly Session[]): Map<string, string> {
  const tabs = new Map<string, string>();
  for (const page of sessions.flatMap((session) => [...session.pages.values()])) {
    if (page.tabId !== null) {
      tabs.set(page.tabId, page.url);
    }
  }
  return tabs;
}
