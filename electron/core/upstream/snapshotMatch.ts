import { holdsAt } from './holdsAt.js';
import { PAIRED, PAIRED_PROPERTIES, SnapshotRendering, type SnapshotNode } from './snapshotText.js';

/**
 * Snapshot text read against its tree without printing it: whether the end of a reply's text is, byte for byte, what
 * upstream's formatter (chrome-devtools-mcp's `SnapshotFormatter`) prints for the tree in the reply's structured
 * content, line by line from the last, each line's parts compared where they must lie. Where it is, the rendering is
 * that part of the reply's own text, with each id's place known from the tree (right after `uid=` at its line's
 * start); no text is built, no page text is searched for ids. Where it is not (or for a tree of a kind upstream's
 * JSON never has), upstream's own formatter is asked (see upstreamReply.ts), so a difference between the two costs
 * time, never correctness.
 */

/** Attributes upstream's formatter never prints as `name=value`. */
const EXCLUDED = new Set(['id', 'role', 'name', 'elementHandle', 'children', 'backendNodeId', 'loaderId']);
/** Upstream's capability names for its four paired properties (its `booleanPropertyMap`). */
const CAPABILITY: Readonly<Record<string, string>> = { disabled: 'disableable', expanded: 'expandable', focused: 'focusable', selected: 'selectable' };
const WHITESPACE = /\s+/g;

/**
 * A role or name as upstream's formatter writes it into a line. Its JSON has strings there; a value of another kind
 * that JavaScript would write as `[object Object]` or the like is not read here (upstream's formatter is asked).
 */
function written(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  throw new Error('a role or name that is not text');
}

/** Upstream's formatter's view of one attribute of a node, after its JSON's pairs are read back (see `PAIRED`). */
function attributeValue(node: SnapshotNode, name: string): unknown {
  return PAIRED_PROPERTIES.has(name) ? node[name] === true : node[name];
}

/**
 * The attribute names upstream's formatter sees on a node, sorted as it sorts them (by UTF-16 code units, as
 * `Array.prototype.sort` does), into `names`. Nothing is allocated per node: a node has a handful of attributes,
 * sorted as they are added, and a collection run in the middle of a large snapshot would copy the whole young tree.
 */
function attributeNames(node: SnapshotNode, names: string[]): void {
  names.length = 0;
  // A JSON object's keys, in the order Object.keys gives them, without the array it makes.
  for (const key in node) {
    let name: string | undefined = key;
    if (Object.hasOwn(PAIRED, key)) {
      name = PAIRED[key];
    } else if (PAIRED_PROPERTIES.has(key) || EXCLUDED.has(key)) {
      name = undefined;
    }
    if (name === undefined) {
      continue;
    }
    let at = names.length;
    while (at > 0 && (names[at - 1] ?? '') > name) {
      names[at] = names[at - 1] ?? '';
      at--;
    }
    names[at] = name;
  }
}

/** Reused by every line: the names of its attributes. */
const scratchNames: string[] = [];

/** The parts of a node's line after its `uid=<id>`, onto `parts`, in the order upstream writes them. */
function lineParts(node: SnapshotNode, parts: string[]): void {
  const role = node['role'];
  const name = node['name'];
  if (role && role !== 'StaticText') {
    parts.push(' ', role === 'none' ? 'ignored' : written(role));
  }
  if (name) {
    parts.push(' "', written(name), '"');
  }
  const isOption = role === 'option';
  attributeNames(node, scratchNames);
  for (const attribute of scratchNames) {
    const value = attributeValue(node, attribute);
    // What upstream's attribute map holds for it: true, a string or a number; a false or any other value, nothing.
    const shown = value === true || typeof value === 'string' || typeof value === 'number' ? value : undefined;
    if (typeof value === 'boolean' && Object.hasOwn(CAPABILITY, attribute)) {
      const capability = CAPABILITY[attribute];
      if (!(isOption && capability === 'selectable')) {
        parts.push(' ', capability ?? attribute);
      }
    }
    if (isOption && attribute === 'value' && shown === name) {
      continue;
    }
    if (shown === true) {
      parts.push(' ', attribute);
    } else if (shown !== undefined) {
      parts.push(' ', attribute, '="', String(shown), '"');
    }
  }
  parts.push('\n');
}

/** Upstream leaves out a named node's children when they are only its name's text, as static text leaves. */
function childrenAreItsName(node: SnapshotNode, children: readonly SnapshotNode[], verbose: boolean): boolean {
  const name = node['name'];
  if (verbose || !name || children.length === 0) {
    return false;
  }
  let text = '';
  for (const child of children) {
    if (child['role'] !== 'StaticText' || (child.children?.length ?? 0) !== 0) {
      return false;
    }
    text += written(child['name'] ?? '');
  }
  if (typeof name !== 'string') {
    // Upstream's formatter fails on such a tree; so does reading it here, and the caller asks upstream's.
    throw new Error('a name that is not a string');
  }
  return text.replace(WHITESPACE, '') === name.replace(WHITESPACE, '');
}

/**
 * Reads the text from its end back: the tree in reverse document order (a node's children from the last, then the
 * node's own line), so that each line's start is known from where the next one starts.
 */
class Matcher {
  readonly #text: string;
  readonly #verbose: boolean;
  readonly #indents: string[] = [];
  /** Reused for every line: its parts after the id. */
  readonly #parts: string[] = [];
  /** Where the text read so far starts. */
  #cursor: number;
  /** In reverse document order, as read. */
  readonly starts: number[] = [];
  readonly shown: string[] = [];
  readonly treeIds: string[] = [];

  constructor(text: string, verbose: boolean) {
    this.#text = text;
    this.#verbose = verbose;
    this.#cursor = text.length;
  }

  get cursor(): number {
    return this.#cursor;
  }

  node(node: SnapshotNode, depth: number): boolean {
    const children = node.children ?? [];
    if (childrenAreItsName(node, children, this.#verbose)) {
      // Not printed, but ids of the tree all the same (upstream's formatter maps every node's id).
      this.#collect(children);
    } else {
      for (let index = children.length - 1; index >= 0; index--) {
        const child = children[index];
        if (child !== undefined && !this.node(child, depth + 1)) {
          return false;
        }
      }
    }
    this.treeIds.push(node.id);
    return this.#line(node, depth);
  }

  /** The node's line, ending where the text read so far starts. */
  #line(node: SnapshotNode, depth: number): boolean {
    const parts = this.#parts;
    parts.length = 0;
    lineParts(node, parts);
    const indent = (this.#indents[depth] ??= ' '.repeat(depth * 2));
    let length = indent.length + 4 + node.id.length;
    for (const part of parts) {
      length += part.length;
    }
    const text = this.#text;
    const start = this.#cursor - length;
    if (start < 0 || !holdsAt(text, start, indent) || !holdsAt(text, start + indent.length, 'uid=') || !holdsAt(text, start + indent.length + 4, node.id)) {
      return false;
    }
    let at = start + indent.length + 4 + node.id.length;
    for (const part of parts) {
      if (!holdsAt(text, at, part)) {
        return false;
      }
      at += part.length;
    }
    this.starts.push(start + indent.length + 4);
    this.shown.push(node.id);
    this.#cursor = start;
    return true;
  }

  /** Ids of nodes not printed, in reverse document order. */
  #collect(nodes: readonly SnapshotNode[]): void {
    for (let index = nodes.length - 1; index >= 0; index--) {
      const node = nodes[index];
      if (node !== undefined) {
        this.#collect(node.children ?? []);
        this.treeIds.push(node.id);
      }
    }
  }
}

/**
 * The rendering of `root` that ends `text`, when the end of `text` is exactly what upstream's formatter prints for
 * it (not verbose: static text that only repeats its parent's name left out; verbose: every node); undefined when it
 * is not, or for a tree upstream's formatter would print some other way than this file knows (an attribute of a kind
 * upstream's JSON never has): upstream's formatter is then the one to ask.
 */
export function matchSnapshot(root: SnapshotNode, verbose: boolean, text: string): SnapshotRendering | undefined {
  try {
    const matcher = new Matcher(text, verbose);
    if (!matcher.node(root, 0)) {
      return undefined;
    }
    const start = matcher.cursor;
    const starts = matcher.starts.reverse().map((at) => at - start);
    return new SnapshotRendering(text.slice(start), starts, matcher.shown.reverse(), matcher.treeIds.reverse());
  } catch {
    return undefined;
  }
}
