import { TabmuxError } from '../../../shared/errors.js';
import { textOf } from '../../../shared/toolResult.js';
import { replyOf, type ListedPage } from '../upstream/upstreamReply.js';
import type { SessionLookup } from './Session.js';
import type { Worker } from './Worker.js';
import { sideCall } from './sideCall.js';

/** Each worker's latest page list, by page id: which URL a page had when its worker last listed it. */
const lastListed = new WeakMap<Worker, ReadonlyMap<number, ListedPage>>();

/** A page as its worker listed it last, if it did. */
export function listedPage(worker: Worker, pageId: number): ListedPage | undefined {
  return lastListed.get(worker)?.get(pageId);
}

/**
 * Keeps the router's view of a worker's pages in step with what upstream lists: titles and URLs of owned pages are
 * updated, pages that are gone (closed by a human, a crash, another tool) leave whichever session owned them, and
 * upstream's own selection is noted for the debug view.
 */
export function syncPages(worker: Worker, listed: readonly ListedPage[], sessionById: SessionLookup): void {
  const byId = new Map<number, ListedPage>();
  for (const page of listed) {
    byId.set(page.id, page);
  }
  lastListed.set(worker, byId);
  worker.selectedPageId = listed.find((page) => page.selected)?.id ?? worker.selectedPageId;
  // Deleting from a Map while iterating it is well defined: an entry deleted is not visited again, none is skipped.
  for (const [pageId, ownerId] of worker.owners) {
    const owner = sessionById(ownerId);
    const owned = owner?.pages.get(pageId);
    const current = byId.get(pageId);
    if (!owner || !owned) {
      worker.owners.delete(pageId);
    } else if (current) {
      owned.url = current.url;
      owned.title = current.title;
    } else {
      owner.removePage(pageId);
      worker.owners.delete(pageId);
      owner.notes.push(`Note: your page ${pageId} (${owned.url || 'no url'}) was closed outside this session and is no longer yours.`);
    }
  }
}

/**
 * Every tab the worker sees, in its ids; the router's view is brought up to date on the way. A side call: bounded,
 * and a worker stuck in it is replaced (see `sideCall`).
 */
export async function listPages(worker: Worker, sessionById: SessionLookup): Promise<ListedPage[]> {
  const result = await sideCall(worker, 'list_pages', {});
  const listed = result.isError ? undefined : replyOf(result).pages;
  if (result.isError || !listed) {
    throw new TabmuxError('upstream_failed', `could not list pages: ${textOf(result)}`);
  }
  syncPages(worker, listed, sessionById);
  return listed;
}
