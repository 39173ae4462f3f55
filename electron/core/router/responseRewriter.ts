import type { ToolResult } from '../../../shared/protocol.js';
import { mapText } from '../../../shared/toolResult.js';
import type { OwnedPage, Session, SessionLookup } from './Session.js';
import type { Worker } from './Worker.js';
import { syncPages } from './pageSync.js';
import { formatToken } from './uidTokens.js';
import {
  formatPageLine,
  isSelectionNote,
  joinSections,
  mayHoldSelectionNote,
  mentionsNavigation,
  OPENED_PAGES_HEADING,
  PAGES_HEADING,
  parsePages,
  rewriteOutputUids,
  SNAPSHOT_HEADING,
  sectionLines,
  snapshotUids,
  splitSections,
  type ListedPage,
} from './upstreamText.js';

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
  if (page && mentionsNavigation(text)) {
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
    } else if (section.heading === null && section.body !== null && mayHoldSelectionNote(section.body)) {
      const kept = sectionLines(section).filter((line) => !isSelectionNote(line));
      // Null drops the section, so removing the only line leaves no stray blank line.
      section.body = kept.length > 0 ? kept.join('\n') : null;
    }
  }
  const epoch = page?.snapshotEpoch ?? session.epoch;
  return rewriteOutputUids(joinSections(sections), (raw) => formatToken(session.short, epoch, raw));
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
