/**
 * Every format the router reads from upstream's text, as chrome-devtools-mcp 1.11.0 prints it (the version pinned in
 * package.json; a unit test checks that the installed one is the same). Their source is upstream's
 * `build/src/McpResponse.js`, `tools/pages.js`, `tools/ToolDefinition.js` and `TextSnapshot.js`: when the pin moves,
 * check each format here against them, then change the version.
 *
 * Nothing outside this file matches upstream's wording, so a format that changes is fixed in one place.
 */

export const PINNED_UPSTREAM_VERSION = '1.11.0';

// ---- page lists ---------------------------------------------------------------------------------------------
// Every tab is listed under `## Pages` (new ones under `## Opened pages`) as `<id>: <title> (<url>)` or `<id>: <url>`,
// with ` [selected]` and ` isolatedContext=<name>` suffixes.

export interface ListedPage {
  id: number;
  title: string;
  url: string;
  selected: boolean;
  isolatedContext: string | null;
}

export const PAGES_HEADING = '## Pages';
export const OPENED_PAGES_HEADING = '## Opened pages';
export const SNAPSHOT_HEADING = '## Latest page snapshot';

const PAGE_LINE = /^(\d+): (.*)$/;
const SELECTED_SUFFIX = ' [selected]';
const CONTEXT_SUFFIX = / isolatedContext=(\S+)$/;
const URL_START = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/**
 * Splits `<title> (<url>)`. Neither part is escaped by upstream (a data: URL may hold spaces and parentheses), so the
 * split is at the first ` (` that is followed by a URL scheme, with the line ending in `)`.
 */
function splitTitleAndUrl(text: string): { title: string; url: string } {
  if (!text.endsWith(')')) {
    return { title: '', url: text };
  }
  let index = text.indexOf(' (');
  while (index !== -1) {
    const inner = text.slice(index + 2, -1);
    if (URL_START.test(inner)) {
      return { title: text.slice(0, index), url: inner };
    }
    index = text.indexOf(' (', index + 2);
  }
  return { title: '', url: text };
}

export function parsePageLine(line: string): ListedPage | undefined {
  const match = PAGE_LINE.exec(line);
  if (!match?.[1] || match[2] === undefined) {
    return undefined;
  }
  let rest = match[2];
  let isolatedContext: string | null = null;
  const context = CONTEXT_SUFFIX.exec(rest);
  if (context?.[1]) {
    isolatedContext = context[1];
    rest = rest.slice(0, context.index);
  }
  let selected = false;
  if (rest.endsWith(SELECTED_SUFFIX)) {
    selected = true;
    rest = rest.slice(0, -SELECTED_SUFFIX.length);
  }
  const { title, url } = splitTitleAndUrl(rest);
  return { id: Number.parseInt(match[1], 10), title, url, selected, isolatedContext };
}

/** A page line in upstream's own format, so a session's filtered list reads like upstream's. */
export function formatPageLine(page: Pick<ListedPage, 'id' | 'title' | 'url' | 'isolatedContext'>, selected: boolean, suffix = ''): string {
  const body = page.title ? `${page.title} (${page.url})` : page.url;
  const context = page.isolatedContext ? ` isolatedContext=${page.isolatedContext}` : '';
  return `${page.id}: ${body}${selected ? SELECTED_SUFFIX : ''}${context}${suffix}`;
}

export function parsePages(lines: readonly string[]): ListedPage[] {
  const pages: ListedPage[] = [];
  for (const line of lines) {
    const page = parsePageLine(line);
    if (page) {
      pages.push(page);
    }
  }
  return pages;
}

/** All pages listed in any `## Pages` section of a response, or undefined when the response has none. */
export function pagesInResponse(text: string): ListedPage[] | undefined {
  const section = splitSections(text).find((s) => s.heading === PAGES_HEADING);
  return section ? parsePages(sectionLines(section)) : undefined;
}

// ---- sections -----------------------------------------------------------------------------------------------

/**
 * A `## ...` or `# ...` section of an upstream text response: its heading line (null for text before the first
 * heading) and the text after it (null when the heading is the last line; a heading-less section with a null body
 * is left out when joining). Bodies stay single strings, so a large snapshot is never split into an array of lines.
 */
export interface Section {
  heading: string | null;
  body: string | null;
}

function isHeadingAt(text: string, index: number): boolean {
  return text.startsWith('## ', index) || text.startsWith('# ', index);
}

/** Splits at lines that start with `# ` or `## `. Linear: one scan for newlines followed by `#`. */
export function splitSections(text: string): Section[] {
  const starts: number[] = [];
  if (isHeadingAt(text, 0)) {
    starts.push(0);
  }
  for (let index = text.indexOf('\n#'); index !== -1; index = text.indexOf('\n#', index + 1)) {
    if (isHeadingAt(text, index + 1)) {
      starts.push(index + 1);
    }
  }
  const sections: Section[] = [];
  if (starts[0] !== 0) {
    sections.push({ heading: null, body: text.slice(0, starts.length > 0 ? (starts[0] ?? 0) - 1 : text.length) });
  }
  starts.forEach((start, i) => {
    const next = starts[i + 1];
    const segment = text.slice(start, next === undefined ? text.length : next - 1);
    const newline = segment.indexOf('\n');
    sections.push(newline === -1 ? { heading: segment, body: null } : { heading: segment.slice(0, newline), body: segment.slice(newline + 1) });
  });
  return sections;
}

export function joinSections(sections: readonly Section[]): string {
  return sections
    .filter((section) => section.heading !== null || section.body !== null)
    .map((section) => (section.heading === null ? (section.body ?? '') : section.body === null ? section.heading : `${section.heading}\n${section.body}`))
    .join('\n');
}

export function sectionLines(section: Section): string[] {
  return section.body === null ? [] : section.body.split('\n');
}

// ---- snapshot uids ------------------------------------------------------------------------------------------
// uids are `<snapshotId>_<n>`; snapshot lines define them as `uid=<raw>` after indentation, and other texts mention
// them as `uid "1_2"`, `uid: "1_2"`, `uid 1_2`, `(uid: "1_2")` or `Related element uid: 1_2`.

export const RAW_UID = /^\d+_\d+$/;
const OUTPUT_UID = /\b(uid(?:=|: ?"|: | "| ))(\d+_\d+)\b/g;
const DEFINED_UID = /^[ \t]*uid=(\d+_\d+)/gm;

/** Rewrites every raw uid mention in upstream text with `toToken`. Linear in the text size. */
export function rewriteOutputUids(text: string, toToken: (raw: string) => string): string {
  if (!text.includes('uid')) {
    return text;
  }
  return text.replace(OUTPUT_UID, (_match, prefix: string, raw: string) => `${prefix}${toToken(raw)}`);
}

/** Every raw uid that snapshot text defines (`uid=<raw>` at the start of a line, after indentation). */
export function snapshotUids(text: string): Set<string> {
  const uids = new Set<string>();
  for (const match of text.matchAll(DEFINED_UID)) {
    if (match[1]) {
      uids.add(match[1]);
    }
  }
  return uids;
}

// ---- single messages ----------------------------------------------------------------------------------------

const TAB_ID = /Tab ID: (\S+)/;
const LAST_PAGE = 'The last open page cannot be closed';
const SELECTION_NOTE_START = 'Note: the previously selected page';
const SELECTION_NOTE = /^Note: the previously selected page was closed\. Page \d+ is now selected\.$/;
const NAVIGATED = /^(Page navigated to |Successfully navigated )/m;

/** The Chrome tab id in a `get_tab_id` answer. */
export function tabIdInText(text: string): string | undefined {
  return TAB_ID.exec(text)?.[1];
}

/** Whether a `close_page` answer is upstream's refusal to close the last tab (which it does not flag as an error). */
export function isLastPageRefusal(text: string): boolean {
  return text.startsWith(LAST_PAGE);
}

/** Whether text may hold upstream's note on its own selected page; `isSelectionNote` tells which line. */
export function mayHoldSelectionNote(text: string): boolean {
  return text.includes(SELECTION_NOTE_START);
}

/** Upstream's note that its process-wide selected page changed, which says nothing true about a session's pages. */
export function isSelectionNote(line: string): boolean {
  return SELECTION_NOTE.test(line);
}

/** Whether an answer says the page navigated, which replaces the document its snapshot uids belonged to. */
export function mentionsNavigation(text: string): boolean {
  return NAVIGATED.test(text);
}
