import type { ToolResult } from '../../../shared/protocol.js';
import { dialogLine, formatPageLine, joinReply, pagesBlock, replyOf, snapshotBlock, type ListedPage, type UpstreamReply } from '../upstream/upstreamReply.js';
import type { OwnedPage, Session, SessionLookup } from './Session.js';
import type { Worker } from './Worker.js';
import { withPageSecrets } from '../activity/CallRecord.js';
import { syncPages } from './pageSync.js';
import { formatToken } from './uidTokens.js';

export interface RewriteContext {
  session: Session;
  worker: Worker;
  /** The page the call acted on (snapshots in the response belong to it). */
  page: OwnedPage | undefined;
  tool: string;
  /** list_pages with includeUnowned: the pages (in this worker's ids) that no session on any worker owns. */
  unowned?: ReadonlySet<number>;
  /** The name the session gave the isolated context a page of its is in; null for the default context. */
  contextName?: ((pageId: number) => string | null) | undefined;
  sessionById: SessionLookup;
}

/**
 * Turns an upstream response into what the session may see: only its own pages, its own current page marked as
 * selected, tabs its action opened given to it, the snapshot's uids replaced by session tokens of a new epoch, and
 * upstream's notes on its process-wide selected page removed. Every decision comes from upstream's structured data;
 * the text of the reply (which holds whatever the page wrote) is passed on as it is, except for the page list and the
 * snapshot, which are cut off its end by their exact rebuilt text and rendered again.
 */
export function rewriteResponse(result: ToolResult, context: RewriteContext): ToolResult {
  const reply = replyOf(result);
  return withText(result, rewriteReply(reply, result.isError === true, context));
}

/**
 * The result as agents get it: upstream's structured data (raw uids, every tab) stays inside the router; the text of
 * a dialog it shows goes with it for the activity log only.
 */
export function withText(result: ToolResult, text: string): ToolResult {
  const dialog = replyOf(result).dialog;
  // The whole line too: a message too short to cut out everywhere is still cut out of its own line.
  return withPageSecrets(agentResult(result, text), dialog ? [dialogLine(dialog), dialog.message, dialog.defaultValue] : []);
}

function agentResult(result: ToolResult, text: string): ToolResult {
  let replaced = false;
  const content = result.content.map((item) => {
    if (item.type !== 'text' || replaced) {
      return item;
    }
    replaced = true;
    return { ...item, text };
  });
  // Copied without the structured content rather than copied whole and deleted from: a deleted key turns the object
  // into a slow dictionary for the rest of its way (the activity log, the reply's serialization).
  const out: ToolResult = { content: replaced ? content : [{ type: 'text', text }, ...content] };
  for (const key of Object.keys(result)) {
    if (key !== 'structuredContent' && key !== 'content') {
      out[key] = result[key];
    }
  }
  return out;
}

function rewriteReply(reply: UpstreamReply, isError: boolean, context: RewriteContext): string {
  const { session, worker, page, tool } = context;
  if (page && (reply.navigatedToUrl !== undefined || (tool === 'navigate_page' && !isError))) {
    // A navigation replaces the document: tokens of the old one must not reach the new one.
    page.snapshotEpoch = null;
    page.snapshotUids = new Set();
  }
  for (const opened of reply.openedPages) {
    if (!worker.owners.has(opened.id)) {
      session.addPage(opened.id, 'opened', opened.url, opened.title);
      worker.owners.set(opened.id, session.id);
    }
  }
  let pages: string | undefined;
  if (reply.pages) {
    syncPages(worker, reply.pages, context.sessionById);
    pages = pagesBlock(renderPages(session, worker, reply.pages, context.unowned, context.contextName));
  }
  let snapshot: string | undefined;
  if (reply.snapshot && page) {
    const { rendering } = reply.snapshot;
    const epoch = session.newEpoch(page, new Set(rendering.treeIds));
    snapshot = snapshotBlock(rendering.withIds((raw) => formatToken(session.short, epoch, raw)));
  }
  return joinReply([reply.head, pages, snapshot]);
}

/**
 * The session's pages (and, on request, unowned ones) as page lines. An `isolatedContext` label is the name the session
 * gave that context, never upstream's: upstream names contexts per worker, and its names may be another session's.
 */
export function renderPages(
  session: Session,
  worker: Worker,
  listed: readonly ListedPage[],
  unowned: ReadonlySet<number> | undefined,
  contextName?: (pageId: number) => string | null,
): string[] {
  const lines: string[] = [];
  for (const page of listed) {
    const owner = worker.owners.get(page.id);
    if (owner === session.id) {
      lines.push(formatPageLine({ id: page.id, title: page.title, url: page.url, isolatedContext: contextName?.(page.id) ?? null }, page.id === session.currentPageId));
    } else if (owner === undefined && unowned?.has(page.id)) {
      lines.push(formatPageLine({ id: page.id, title: page.title, url: page.url, isolatedContext: null }, false, ' (unowned)'));
    }
  }
  if (lines.length === 0) {
    lines.push('No pages yet: the first page-scoped call opens one for this session, or call new_page.');
  }
  return lines;
}
