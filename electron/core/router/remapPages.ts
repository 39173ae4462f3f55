import type { Upstream } from '../UpstreamClient.js';
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
    const byTab = await tabs.pageIdsByTab(worker);
    for (const session of sessions) {
      renumber(session, worker, byTab);
    }
  } finally {
    worker.upstream = previous;
  }
}

function renumber(session: Session, worker: Worker, byTab: ReadonlyMap<string, number>): void {
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
      ? `Note: the browser connection was restarted; your page(s) ${lost.join(', ')} were lost. Page-scoped tools open a fresh tab if you have none. Take a new snapshot before using uids.`
      : 'Note: the browser connection was restarted; your pages were kept but may have new ids (see list_pages). Take a new snapshot before using uids.',
  );
}
