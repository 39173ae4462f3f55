import type { ToolResult } from '../../../shared/protocol.js';
import type { OwnedPage, Session } from './Session.js';
import type { Worker } from './Worker.js';
import {
  formatPageLine,
  joinSections,
  OPENED_PAGES_HEADING,
  PAGES_HEADING,
  parsePages,
  SNAPSHOT_HEADING,
  sectionLines,
  splitSections,
  type ListedPage,
} from './pageListText.js';
import { formatToken, rewriteOutputUids, snapshotUids } from './uidTokens.js';
import { mapText } from '../../../shared/toolResult.js';

export interface RewriteContext {
  session: Session;
  worker: Worker;
  /** The page the call acted on (snapshots in the response belong to it). */
  page: OwnedPage | undefined;
  tool: string;
  /** list_pages with includeUnowned: the pages (in this worker's ids) that no session on any worker owns. */
  unowned?: ReadonlySet<number>;
  sessionById: SessionLookup;
}

export type SessionLookup = (id: string) => Session | undefined;

const UPSTREAM_SELECTION_NOTE = /^Note: the previously selected page was closed\. Page \d+ is now selected\.$/;
const NAVIGATED = /^(Page navigated to |Successfully navigated )/m;

/**
 * Turns an upstream response into what the session may see: only its own pages, its own current page marked as
 * selected, popups attributed to it, snapshot uids replaced by session tokens of a new epoch, and upstream's
 * selected-page notes (which describe process-wide state) removed.
 */
export function rewriteResponse(result: ToolResult, context: RewriteContext): ToolResult {
  return mapText(result, (text) => rewriteText(text, context));
}

function rewriteText(text: string, context: RewriteContext): string {
  const { session, worker, page } = context;
  const sections = splitSections(text);
  if (page && NAVIGATED.test(text)) {
    // A navigation replaces the document: tokens of the old one must not reach the new one.
    page.snapshotEpoch = null;
    page.snapshotUids = new Set();
  }
  for (const section of sections) {
    if (section.heading === PAGES_HEADING) {
      const listed = parsePages(sectionLines(section));
      syncPages(worker, listed, context.sessionById);
      section.body = renderPages(session, worker, listed, context.unowned).join('\n');
    } else if (section.heading === OPENED_PAGES_HEADING) {
      for (const opened of parsePages(sectionLines(section))) {
        if (!worker.owners.has(opened.id)) {
          session.addPage(opened.id, 'opened', opened.url, opened.title);
          worker.owners.set(opened.id, session.id);
        }
      }
    } else if (section.heading === SNAPSHOT_HEADING && page) {
      session.newEpoch(page, snapshotUids(section.body ?? ''));
    } else if (section.heading === null && section.body?.includes('Note: the previously selected page')) {
      const kept = sectionLines(section).filter((line) => !UPSTREAM_SELECTION_NOTE.test(line));
      // Null drops the section, so removing the only line leaves no stray blank line.
      section.body = kept.length > 0 ? kept.join('\n') : null;
    }
  }
  const epoch = page?.snapshotEpoch ?? session.epoch;
  return rewriteOutputUids(joinSections(sections), (raw) => formatToken(session.short, epoch, raw));
}

/**
 * Updates titles and URLs of owned pages, drops pages that are gone (closed by a human, a crash, another tool)
 * from whichever session owned them, and notes upstream's selection.
 */
export function syncPages(worker: Worker, listed: readonly ListedPage[], sessionById: SessionLookup): void {
  const byId = new Map(listed.map((page) => [page.id, page]));
  worker.selectedPageId = listed.find((page) => page.selected)?.id ?? worker.selectedPageId;
  for (const [pageId, ownerId] of [...worker.owners]) {
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

export function renderPages(session: Session, worker: Worker, listed: readonly ListedPage[], unowned: ReadonlySet<number> | undefined): string[] {
  const lines: string[] = [];
  for (const page of listed) {
    const owner = worker.owners.get(page.id);
    if (owner === session.id) {
      lines.push(formatPageLine(page, page.id === session.currentPageId));
    } else if (owner === undefined && unowned?.has(page.id)) {
      lines.push(formatPageLine(page, false, ' (unowned)'));
    }
  }
  if (lines.length === 0) {
    lines.push('No pages yet: the first page-scoped call opens one for this session, or call new_page.');
  }
  return lines;
}
