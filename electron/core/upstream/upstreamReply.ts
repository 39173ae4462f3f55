import type { ToolResult } from '../../../shared/protocol.js';
import { isRecord } from '../../../shared/isRecord.js';
import { isSnapshotNode, renderSnapshot, type SnapshotNode, type SnapshotRendering } from './snapshotText.js';
import { holdsAt } from './holdsAt.js';
import { matchSnapshot } from './snapshotMatch.js';

/**
 * Reading a reply of the pinned upstream (chrome-devtools-mcp 1.11.0, run with `--experimentalStructuredContent`).
 *
 * Upstream's text embeds whatever a web page writes (titles, URLs, form values, dialog messages), so nothing here
 * looks for headings or `uid=` inside it. The structured content says which parts a reply has; each part's exact text
 * is rebuilt from that data and cut off the end of the reply, in the reverse of the order upstream writes them
 * (`McpResponse.format`): ... dialog, selected-page note, `## Pages`, ..., `## Latest page snapshot`. A part whose
 * rebuilt text is not exactly where it must be is not trusted.
 */

export const UPSTREAM_VERSION = '1.11.0';

/** A raw upstream uid, `<snapshotId>_<n>`. */
export const RAW_UID = /^\d+_\d+$/;

const LAST_PAGE = 'The last open page cannot be closed';

export interface ListedPage {
  id: number;
  url: string;
  title: string;
  selected: boolean;
  isolatedContext: string | null;
}

export interface UpstreamDialog {
  type: string;
  message: string;
  defaultValue: string;
}

export interface UpstreamReply {
  /** The reply's text before its page list and snapshot, as upstream wrote it. */
  head: string;
  /** Every page target the worker lists (replies that carry a page list). */
  pages: ListedPage[] | undefined;
  /** Pages the call's action opened, from the structured data. */
  openedPages: ListedPage[];
  /** The snapshot's tree, and upstream's rendering of it (to print it again with other ids). */
  snapshot: { root: SnapshotNode; verbose: boolean; rendering: SnapshotRendering } | undefined;
  /**
   * The reply carried a snapshot whose text could not be matched to its data: `head` is then rebuilt from the
   * structured message alone and the snapshot is rendered from data.
   */
  rebuilt: boolean;
  /** Where upstream saved a snapshot when asked to (it appends `.txt` to the path it was given). */
  snapshotFilePath: string | undefined;
  navigatedToUrl: string | undefined;
  tabId: string | undefined;
  /** The JavaScript dialog the page shows, as upstream's structured data has it: page-written text. */
  dialog: UpstreamDialog | undefined;
  /** Upstream's own message lines (structured), never page content except where a tool echoes it. */
  message: string | undefined;
  errorMessage: string | undefined;
}

const SNAPSHOT_HEADING = '## Latest page snapshot';
const NEWLINE = 0x0a;
const PAGES_HEADING = '## Pages';
const SELECTED_SUFFIX = ' [selected]';
/** Upstream prepends this when an element is selected in DevTools' Elements panel but missing from the tree. */
const SELECTED_ELEMENT_NOTE =
  'Note: there is a selected element in the DevTools Elements panel but it is not included into the current a11y tree snapshot.\nGet a verbose snapshot to include all elements if you are interested in the selected element.\n\n';
/** Process-wide selection state of a worker: it names a page id that may not be the session's. */
const SELECTION_NOTE = /^Note: the previously selected page (?:was closed|is no longer listed)\.(?: Page \d+ is now selected\.)?$/;

export function formatPageLine(page: Pick<ListedPage, 'id' | 'title' | 'url' | 'isolatedContext'>, selected: boolean, suffix = ''): string {
  const body = page.title ? `${page.title} (${page.url})` : page.url;
  const context = page.isolatedContext ? ` isolatedContext=${page.isolatedContext}` : '';
  return `${page.id}: ${body}${selected ? SELECTED_SUFFIX : ''}${context}${suffix}`;
}

export function pagesBlock(lines: readonly string[]): string {
  return [PAGES_HEADING, ...lines].join('\n');
}

export function snapshotBlock(text: string): string {
  return `${SNAPSHOT_HEADING}\n${text}`;
}

/** The text before `start`, where what starts there is the whole text or comes after a newline; else undefined. */
function textBefore(text: string, start: number): string | undefined {
  if (start === 0) {
    return '';
  }
  return text.charCodeAt(start - 1) === NEWLINE ? text.slice(0, start - 1) : undefined;
}

/** `text` without `block`, which must end at `end` (see `textBefore`); undefined when it is not there. */
function cutBefore(text: string, end: number, block: string): string | undefined {
  const at = end - block.length;
  return at >= 0 && holdsAt(text, at, block) ? textBefore(text, at) : undefined;
}

/**
 * Lines compared at a time by `cutLines`: joined, a batch is a string V8 makes in its young generation, while a whole
 * long page list would be a large object, slow to allocate and kept until a full collection.
 */
const LINES_PER_COMPARE = 128;

/**
 * `text` without `lines` (joined by newlines) at its very end (see `textBefore`); undefined when it does not end so.
 * Compared where they lie, a batch of lines at a time, not joined whole first.
 */
function cutLines(text: string, lines: readonly string[]): string | undefined {
  let length = lines.length - 1;
  for (const line of lines) {
    length += line.length;
  }
  const start = text.length - length;
  if (lines.length === 0 || start < 0) {
    return undefined;
  }
  let at = start;
  for (let from = 0; from < lines.length; from += LINES_PER_COMPARE) {
    if (from > 0) {
      if (text.charCodeAt(at) !== NEWLINE) {
        return undefined;
      }
      at++;
    }
    const batch = lines.slice(from, from + LINES_PER_COMPARE).join('\n');
    if (!holdsAt(text, at, batch)) {
      return undefined;
    }
    at += batch.length;
  }
  return textBefore(text, start);
}

function listedPages(value: unknown): ListedPage[] | undefined {
  if (!Array.isArray(value)) {
    return undefined;
  }
  const pages: ListedPage[] = [];
  for (const item of value) {
    if (!isRecord(item)) {
      return undefined;
    }
    const { id, url, title, selected, isolatedContext } = item;
    if (typeof id !== 'number' || typeof url !== 'string' || typeof title !== 'string') {
      return undefined;
    }
    pages.push({ id, url, title, selected: selected === true, isolatedContext: typeof isolatedContext === 'string' ? isolatedContext : null });
  }
  return pages;
}

function stringField(structured: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = structured[key];
  return typeof value === 'string' ? value : undefined;
}

function dialogOf(value: unknown): UpstreamDialog | undefined {
  if (!isRecord(value) || typeof value['type'] !== 'string' || typeof value['message'] !== 'string') {
    return undefined;
  }
  return { type: value['type'], message: value['message'], defaultValue: typeof value['defaultValue'] === 'string' ? value['defaultValue'] : '' };
}

/** The line upstream writes under `# Open dialog` (`McpResponse.format`): the dialog's kind, message and default. */
export function dialogLine(dialog: UpstreamDialog): string {
  const defaultValue = dialog.type === 'prompt' ? ` (default value: "${dialog.defaultValue}")` : '';
  return `${dialog.type}: ${dialog.message}${defaultValue}.`;
}

/**
 * Cuts the snapshot section off the end of `text`, trying the renderings upstream may have used: the rendering must
 * be the end of the text, right after the heading (and the selected-element note, when upstream wrote one). The text
 * is read against the tree first (snapshotMatch.ts); upstream's own formatter renders it only when that finds no
 * rendering the text ends with.
 */
function cutSnapshot(text: string, root: SnapshotNode): { rest: string; verbose: boolean; rendering: SnapshotRendering } | undefined {
  const renderings = [(verbose: boolean) => matchSnapshot(root, verbose, text), (verbose: boolean) => renderSnapshot(root, verbose)];
  for (const render of renderings) {
    for (const verbose of [false, true]) {
      const rendering = render(verbose);
      const rest = rendering === undefined ? undefined : restBefore(text, rendering);
      if (rendering !== undefined && rest !== undefined) {
        return { rest, verbose, rendering };
      }
    }
  }
  return undefined;
}

/** `text` before `rendering` and its heading, when they are its very end; undefined when they are not. */
function restBefore(text: string, rendering: SnapshotRendering): string | undefined {
  const start = rendering.startIn(text);
  if (start === -1) {
    return undefined;
  }
  for (const head of [`${SNAPSHOT_HEADING}\n`, `${SNAPSHOT_HEADING}\n${SELECTED_ELEMENT_NOTE}`]) {
    const rest = cutBefore(text, start, head);
    if (rest !== undefined) {
      return rest;
    }
  }
  return undefined;
}

/**
 * Splits an upstream reply into the parts the router acts on. `structured` is the reply's `structuredContent`;
 * without it (a reply of an older worker, an SDK error) the whole text is `head` and nothing is trusted from it.
 */
export function readUpstreamReply(text: string, structured: Readonly<Record<string, unknown>> | undefined): UpstreamReply {
  const data = structured ?? {};
  const reply: UpstreamReply = {
    head: text,
    pages: undefined,
    openedPages: listedPages(data['openedPages']) ?? [],
    snapshot: undefined,
    rebuilt: false,
    snapshotFilePath: stringField(data, 'snapshotFilePath'),
    navigatedToUrl: stringField(data, 'navigatedToUrl'),
    tabId: stringField(data, 'tabId'),
    dialog: dialogOf(data['dialog']),
    message: stringField(data, 'message'),
    errorMessage: stringField(data, 'errorMessage'),
  };
  let rest = text;
  const root = data['snapshot'];
  if (isSnapshotNode(root)) {
    const cut = cutSnapshot(rest, root);
    if (cut) {
      rest = cut.rest;
      reply.snapshot = { root, verbose: cut.verbose, rendering: cut.rendering };
    } else {
      // Fail closed: nothing of this text is trusted; the agent gets upstream's own message and the snapshot from data.
      reply.snapshot = { root, verbose: false, rendering: renderSnapshot(root, false) };
      reply.rebuilt = true;
      reply.head = stringField(data, 'message') ?? '';
      reply.pages = listedPages(data['pages']);
      return reply;
    }
  }
  const pages = listedPages(data['pages']);
  if (pages && pages.length > 0) {
    const lines = [PAGES_HEADING];
    for (const page of pages) {
      lines.push(formatPageLine(page, page.selected));
    }
    const before = cutLines(rest, lines);
    if (before === undefined) {
      throw new Error(`upstream ${UPSTREAM_VERSION} reply: its page list is not where its structured data says`);
    }
    reply.pages = pages;
    rest = dropSelectionNote(before);
  }
  reply.head = rest;
  return reply;
}

/** Upstream writes the selected-page note as the line right before `## Pages`; only that line is looked at. */
function dropSelectionNote(text: string): string {
  const newline = text.lastIndexOf('\n');
  const last = text.slice(newline + 1);
  if (!SELECTION_NOTE.test(last)) {
    return text;
  }
  return newline === -1 ? '' : text.slice(0, newline);
}

/** Joins a reply back together the way upstream does: sections separated by one newline, empty ones left out. */
export function joinReply(parts: ReadonlyArray<string | undefined>): string {
  return parts.filter((part): part is string => part !== undefined && part !== '').join('\n');
}

/** Replies already read: one result is looked at by several parts of the router, and reading renders its snapshot. */
const readReplies = new WeakMap<ToolResult, UpstreamReply>();

/** The reply of a tool result: its first text item, read with its structured content. */
export function replyOf(result: ToolResult): UpstreamReply {
  const known = readReplies.get(result);
  if (known) {
    return known;
  }
  const first = result.content.find((item) => item.type === 'text');
  const reply = readUpstreamReply(typeof first?.text === 'string' ? first.text : '', result.structuredContent);
  readReplies.set(result, reply);
  return reply;
}

/** Whether `close_page` was refused because the tab is the browser's last (upstream does not flag it an error). */
export function isLastPageRefusal(reply: UpstreamReply): boolean {
  return reply.message?.startsWith(LAST_PAGE) ?? false;
}
