import { randomBytes } from 'node:crypto';
import { SnapshotFormatter } from 'chrome-devtools-mcp/build/src/formatters/SnapshotFormatter.js';
import { isRecord } from '../../../shared/isRecord.js';
import { holdsAt } from './holdsAt.js';

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
export const PAIRED: Readonly<Record<string, string>> = { disableable: 'disabled', expandable: 'expanded', focusable: 'focused', selectable: 'selected' };
export const PAIRED_PROPERTIES: ReadonlySet<string> = new Set(Object.values(PAIRED));

export function isSnapshotNode(value: unknown): value is SnapshotNode {
  if (!isRecord(value) || typeof value['id'] !== 'string') {
    return false;
  }
  const children = value['children'];
  return children === undefined || (Array.isArray(children) && children.every(isSnapshotNode));
}

interface FormatterNode {
  id: string;
  children: FormatterNode[];
  [attribute: string]: unknown;
}

/** The node shape upstream's formatter takes, rebuilt from its JSON, with every id mapped through `mapId`. */
function formatterNode(node: SnapshotNode, mapId: (id: string) => string): FormatterNode {
  const out: FormatterNode = { id: mapId(node.id), children: [] };
  for (const key of Object.keys(node)) {
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
      out[key] = node[key];
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

const DIGITS = /^\d+$/;
/**
 * What a marker opens and closes with. The random key, not these characters, keeps a page from posing as a marker;
 * they are one-byte characters so that the rendering of a page whose text is all Latin-1 stays a one-byte string
 * (a character outside Latin-1 would make V8 store the whole text, and every piece cut from it, at two bytes a
 * character).
 */
const MARK_OPEN = '\u0001';
const MARK_CLOSE = '\u0002';

/**
 * One rendering of a snapshot: its text with upstream's own ids, and where each id it shows stands in it, so that the
 * text with ids shown any other way is made without rendering again.
 */
export class SnapshotRendering {
  /** Every uid the tree defines, in document order, whether the text shows it or not. */
  readonly treeIds: readonly string[];
  /** The text exactly as upstream prints it, with upstream's own ids. */
  readonly text: string;
  /** Where each id the text shows starts in it, in the order it shows them. */
  readonly #starts: readonly number[];
  /** The ids the text shows, in the order it shows them. */
  readonly #ids: readonly string[];

  constructor(text: string, starts: readonly number[], ids: readonly string[], treeIds: readonly string[]) {
    if (starts.length !== ids.length) {
      throw new Error(`a snapshot rendering places ${starts.length} ids, not the ${ids.length} it shows`);
    }
    this.text = text;
    this.#starts = starts;
    this.#ids = ids;
    this.treeIds = treeIds;
  }

  /** The length of the text with upstream's own ids. */
  get length(): number {
    return this.text.length;
  }

  /** The same text with every id written as `mapId` says. */
  withIds(mapId: (id: string) => string): string {
    const text = this.text;
    const starts = this.#starts;
    const ids = this.#ids;
    // Concatenated rather than joined from an array: V8 builds one rope of slices and flattens it once.
    let out = '';
    let last = 0;
    for (let index = 0; index < ids.length; index++) {
      const start = starts[index] ?? last;
      const id = ids[index] ?? '';
      out += text.slice(last, start);
      out += mapId(id);
      last = start + id.length;
    }
    return out + text.slice(last);
  }

  /** Where this text (upstream's ids) starts in `source` when it is exactly the end of `source`; -1 when it is not. */
  startIn(source: string): number {
    const start = source.length - this.text.length;
    return start >= 0 && holdsAt(source, start, this.text) ? start : -1;
  }
}

/**
 * Upstream's own formatter's rendering: it runs once with a marker in place of every id (a random key per rendering,
 * so no page text can pose as one), and the ids' places are read off the markers. snapshotMatch.ts reads the same
 * text faster; this is the reference it is checked against, and what is asked when the printer's text is not the
 * text a reply holds.
 */
export function renderSnapshot(root: SnapshotNode, verbose: boolean): SnapshotRendering {
  const key = randomBytes(9).toString('base64url');
  const treeIds: string[] = [];
  const marker = (id: string): string => `${MARK_OPEN}${key}${String(treeIds.push(id) - 1)}${MARK_CLOSE}`;
  const marked = new SnapshotFormatter({ root: formatterNode(root, marker), verbose, hasSelectedElement: false }).toString();
  // Each marker is the key after MARK_OPEN, the id's index in the tree, and MARK_CLOSE; the key is this rendering's alone.
  const open = `${MARK_OPEN}${key}`;
  const parts: string[] = [];
  const starts: number[] = [];
  const shown: string[] = [];
  let length = 0;
  let last = 0;
  for (let at = marked.indexOf(open); at !== -1; at = marked.indexOf(open, last)) {
    const digits = at + open.length;
    const close = marked.indexOf(MARK_CLOSE, digits);
    const index = close === -1 ? '' : marked.slice(digits, close);
    const id = DIGITS.test(index) ? treeIds[Number(index)] : undefined;
    if (id === undefined) {
      throw new Error('upstream\'s snapshot formatter printed an id marker this rendering did not make');
    }
    const piece = marked.slice(last, at);
    parts.push(piece, id);
    starts.push(length + piece.length);
    shown.push(id);
    length += piece.length + id.length;
    last = close + 1;
  }
  parts.push(marked.slice(last));
  return new SnapshotRendering(parts.join(''), starts, shown, treeIds);
}
