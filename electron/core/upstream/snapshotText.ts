import { randomBytes } from 'node:crypto';
import { SnapshotFormatter } from 'chrome-devtools-mcp/build/src/formatters/SnapshotFormatter.js';
import { isRecord } from '../../../shared/isRecord.js';

/**
 * A node of the snapshot tree as upstream returns it in `structuredContent.snapshot` (its `toJSON()` form): `id`,
 * `role`, `name`, attributes, `children`. Everything in it except `id` can be written by the page.
 */
export interface SnapshotNode {
  id: string;
  children?: SnapshotNode[];
  [attribute: string]: unknown;
}

/**
 * Upstream's JSON turns four boolean properties into a pair: `focused: false` becomes `focusable: true`, and
 * `focused: true` becomes `focusable: true, focused: true`. Reading the pair back gives the property upstream's text
 * formatter saw.
 */
const PAIRED: Readonly<Record<string, string>> = { disableable: 'disabled', expandable: 'expanded', focusable: 'focused', selectable: 'selected' };
const PAIRED_PROPERTIES = new Set(Object.values(PAIRED));

export function isSnapshotNode(value: unknown): value is SnapshotNode {
  if (!isRecord(value) || typeof value['id'] !== 'string') {
    return false;
  }
  const children = value['children'];
  return children === undefined || (Array.isArray(children) && children.every(isSnapshotNode));
}

/** Every uid the tree defines, in document order. */
export function snapshotIds(root: SnapshotNode): string[] {
  const ids: string[] = [];
  const stack: SnapshotNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) {
      break;
    }
    ids.push(node.id);
    const children = node.children ?? [];
    for (let index = children.length - 1; index >= 0; index--) {
      const child = children[index];
      if (child) {
        stack.push(child);
      }
    }
  }
  return ids;
}

interface FormatterNode {
  id: string;
  children: FormatterNode[];
  [attribute: string]: unknown;
}

/** The node shape upstream's formatter takes, rebuilt from its JSON, with every id mapped through `mapId`. */
function formatterNode(node: SnapshotNode, mapId: (id: string) => string): FormatterNode {
  const out: FormatterNode = { id: mapId(node.id), children: [] };
  for (const [key, value] of Object.entries(node)) {
    if (key === 'id') {
      continue;
    }
    if (key === 'children') {
      out.children = (node.children ?? []).map((child) => formatterNode(child, mapId));
    } else if (Object.hasOwn(PAIRED, key)) {
      const property = PAIRED[key];
      if (property !== undefined) {
        out[property] = node[property] === true;
      }
    } else if (!PAIRED_PROPERTIES.has(key)) {
      out[key] = value;
    }
  }
  return out;
}

/**
 * The snapshot exactly as the pinned upstream prints it under `## Latest page snapshot`, from its structured form.
 * Upstream's own formatter does the printing, so the text matches byte for byte (checked before it is trusted).
 */
export function snapshotText(root: SnapshotNode, verbose: boolean, mapId: (id: string) => string = (id) => id): string {
  return renderSnapshot(root, verbose).withIds(mapId);
}

/**
 * One rendering of a snapshot by upstream's formatter, from which the text with ids shown any way is cut without
 * rendering again: the formatter runs once with a marker in place of every id (a random key per rendering, so no
 * page text can pose as one), and the text is kept in the pieces between the markers.
 */
export class SnapshotRendering {
  /** The text exactly as upstream prints it, with upstream's own ids. */
  readonly text: string;
  readonly #pieces: readonly string[];
  readonly #ids: readonly string[];

  constructor(pieces: readonly string[], ids: readonly string[]) {
    this.#pieces = pieces;
    this.#ids = ids;
    this.text = this.withIds((id) => id);
  }

  /** The same text with every id written as `mapId` says. */
  withIds(mapId: (id: string) => string): string {
    const out: string[] = [];
    this.#pieces.forEach((piece, index) => {
      out.push(piece);
      const id = this.#ids[index];
      if (id !== undefined && index < this.#pieces.length - 1) {
        out.push(mapId(id));
      }
    });
    return out.join('');
  }
}

export function renderSnapshot(root: SnapshotNode, verbose: boolean): SnapshotRendering {
  const key = randomBytes(9).toString('base64url');
  const ids: string[] = [];
  const marker = (id: string): string => `\uE000${key}${String(ids.push(id) - 1)}\uE001`;
  const marked = new SnapshotFormatter({ root: formatterNode(root, marker), verbose, hasSelectedElement: false }).toString();
  const pattern = new RegExp(`\uE000${key}(\\d+)\uE001`, 'g');
  const pieces: string[] = [];
  const order: string[] = [];
  let last = 0;
  for (const match of marked.matchAll(pattern)) {
    pieces.push(marked.slice(last, match.index));
    order.push(ids[Number(match[1])] ?? '');
    last = match.index + match[0].length;
  }
  pieces.push(marked.slice(last));
  return new SnapshotRendering(pieces, order);
}
