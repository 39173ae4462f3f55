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
  return new SnapshotFormatter({ root: formatterNode(root, mapId), verbose, hasSelectedElement: false }).toString();
}
