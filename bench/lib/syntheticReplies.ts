import { SnapshotFormatter } from 'chrome-devtools-mcp/build/src/formatters/SnapshotFormatter.js';
import type { ToolResult } from '../../shared/protocol.js';

/**
 * Replies of the pinned upstream run with `--experimentalStructuredContent`, built the way its `McpResponse.format`
 * builds them: the same data in `structuredContent` and, rendered by upstream's own formatter, in the text. The
 * router reads the data and rebuilds the text from it, so a reply without structured content would only measure
 * its pass-through.
 */

/** A node as upstream's snapshot holds it before formatting (puppeteer's serialized AX node with a uid). */
interface AxNode {
  id: string;
  role: string;
  name?: string;
  children: AxNode[];
  [attribute: string]: unknown;
}

const ORIGIN = 'http://127.0.0.1:8080';

/**
 * A take_snapshot reply whose tree has exactly `nodes` nodes: a page of list items, each a link, a button and a text
 * field, as a real page gives them. Links and buttons carry their label as a StaticText child, which upstream keeps
 * in the data but leaves out of the text (so the text has about two lines for every three nodes).
 */
export function snapshotReply(nodes: number, snapshotId = 7): ToolResult {
  let next = 0;
  const node = (role: string, name: string | undefined, attributes: Record<string, unknown> = {}, children: AxNode[] = []): AxNode => ({
    id: `${snapshotId}_${next++}`,
    role,
    ...(name === undefined ? {} : { name }),
    ...attributes,
    children,
  });
  const root = node('RootWebArea', 'Big page', { url: `${ORIGIN}/big.html` });
  const main = node('main', undefined);
  const list = node('list', undefined);
  root.children.push(main);
  main.children.push(list);
  const ITEM_NODES = 6;
  for (let index = 0; next + ITEM_NODES <= nodes; index++) {
    const item = node('listitem', undefined, { level: 1 });
    const link = node('link', `Item link ${index}`, { url: `${ORIGIN}/big.html#item-${index}`, focused: false });
    link.children.push(node('StaticText', `Item link ${index}`));
    const button = node('button', `Action ${index}`, { focused: false, ...(index % 10 === 0 ? { disabled: true } : {}) });
    button.children.push(node('StaticText', `Action ${index}`));
    const field = node('textbox', `Field ${index}`, { focused: false, ...(index % 3 === 0 ? { value: `typed ${index}` } : {}) });
    item.children.push(link, button, field);
    list.children.push(item);
  }
  while (next < nodes) {
    root.children.push(node('StaticText', `Footer ${next}`));
  }
  const formatter = new SnapshotFormatter({ root, verbose: false, hasSelectedElement: false });
  return { content: [{ type: 'text', text: ['## Latest page snapshot', formatter.toString()].join('\n') }], structuredContent: { snapshot: formatter.toJSON() } };
}

/** A list_pages reply of `tabs` tabs, the last one selected, as upstream lists every tab of the browser. */
export function pageListReply(tabs: number): ToolResult {
  const lines = ['## Pages'];
  const pages: Array<{ id: number; url: string; title: string; selected: boolean }> = [];
  for (let id = 1; id <= tabs; id++) {
    const page = { id, url: `${ORIGIN}/page-${id}.html`, title: `Tab ${id}`, selected: id === tabs };
    lines.push(`${page.id}: ${page.title} (${page.url})${page.selected ? ' [selected]' : ''}`);
    pages.push(page);
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { pages } };
}
