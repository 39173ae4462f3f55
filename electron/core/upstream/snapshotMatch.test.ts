import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchSnapshot } from './snapshotMatch.js';
import { renderSnapshot, type SnapshotNode } from './snapshotText.js';

/**
 * Reading text against its tree, checked with upstream's own formatter (through renderSnapshot, which runs it): the
 * text upstream prints for a tree is read as that tree's, with the same ids in the same places and the same ids of
 * the tree; a text that differs anywhere is not.
 */

const ROLES = ['RootWebArea', 'StaticText', 'button', 'link', 'option', 'none', 'textbox', 'checkbox', 'combobox', 'heading', 'generic', 'listitem', 'image', 'menuitem'];
/** Page-written text: whitespace of every kind, quotes, newlines, what looks like ids, markers and attributes. */
const pageText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', 'Home', ' Home ', 'Ho me', 'uid=1_2 button "x"', 'a\nuid=9_9 link', '"', '\u0001k0\u0002', 'focusable', 'x="y"', '\t\n ', 'Señor ünïcode ✓', '0'),
  fc.array(fc.constantFrom('a', 'b', ' ', '\n', '\t', '"', '='), { maxLength: 10 }).map((chars) => chars.join('')),
);
const scalar = fc.oneof(pageText, fc.boolean(), fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
const ATTRIBUTES = ['value', 'description', 'keyshortcuts', 'roledescription', 'valuetext', 'checked', 'pressed', 'level', 'valuemin', 'valuemax', 'autocomplete', 'haspopup', 'invalid', 'orientation', 'multiline', 'multiselectable', 'readonly', 'required', 'modal', 'url', 'backendNodeId', 'loaderId', 'elementHandle'];
const PAIRS = ['disableable', 'expandable', 'focusable', 'selectable'] as const;
const PAIRED_OF: Record<(typeof PAIRS)[number], string> = { disableable: 'disabled', expandable: 'expanded', focusable: 'focused', selectable: 'selected' };

/** The attributes of one node as upstream's JSON has them (a pair: the capability, and the property when true). */
const attributes = fc
  .record({
    plain: fc.dictionary(fc.constantFrom(...ATTRIBUTES), scalar, { maxKeys: 5 }),
    other: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }).filter((key) => !['id', 'children', '__proto__', ...PAIRS, ...Object.values(PAIRED_OF)].includes(key)), scalar, { maxKeys: 2 }),
    pairs: fc.array(fc.tuple(fc.constantFrom(...PAIRS), fc.boolean()), { maxLength: 4 }),
    lonePaired: fc.option(fc.constantFrom(...Object.values(PAIRED_OF))),
  })
  .map(({ plain, other, pairs, lonePaired }) => {
    const out: Record<string, unknown> = { ...other, ...plain };
    for (const [capability, on] of pairs) {
      out[capability] = true;
      if (on) {
        out[PAIRED_OF[capability]] = true;
      }
    }
    if (lonePaired !== null) {
      // A property without its capability: upstream's JSON never writes one; its formatter then sees nothing.
      out[lonePaired] = true;
    }
    return out;
  });

let nextId = 0;
const node = (children: SnapshotNode[], role: string, name: string | undefined, extra: Record<string, unknown>): SnapshotNode => {
  const out: SnapshotNode = { ...extra, id: `1_${nextId++}`, role };
  if (name !== undefined) {
    out['name'] = name;
  }
  if (children.length > 0 || nextId % 3 === 0) {
    out.children = children;
  }
  return out;
};

/** A named node whose children are static text making up its name, up to whitespace (or nearly). */
const namedWithText = fc
  .tuple(fc.array(fc.constantFrom('Go', 'to', 'page', ' ', '\n', 'x', '"'), { minLength: 1, maxLength: 5 }), fc.constantFrom(ROLES[3], ROLES[4], ROLES[1]), fc.boolean(), fc.boolean())
  .map(([parts, role, spaced, different]) => {
    const name = parts.join(spaced ? ' ' : '');
    const children = parts.map((part) => node([], 'StaticText', part, {}));
    return node(different ? [...children, node([], 'StaticText', 'more', {})] : children, role ?? 'link', name, {});
  });

const tree: fc.Arbitrary<SnapshotNode> = fc.letrec<{ node: SnapshotNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(fc.constantFrom(...ROLES), fc.option(pageText), attributes).map(([role, name, extra]) => node([], role, name ?? undefined, extra)),
    namedWithText,
    fc.tuple(fc.array(tie('node'), { maxLength: 4 }), fc.constantFrom(...ROLES), fc.option(pageText), attributes).map(([children, role, name, extra]) => node(children, role, name ?? undefined, extra)),
  ),
})).node;

function upstreamRendering(root: SnapshotNode, verbose: boolean): ReturnType<typeof renderSnapshot> | undefined {
  try {
    return renderSnapshot(root, verbose);
  } catch {
    return undefined;
  }
}

describe('reading snapshot text against its tree as upstream prints it', () => {
  it('reads upstream\'s text for every tree, after whatever comes before it, with its ids in the same places', () => {
    fc.assert(
      fc.property(tree, fc.boolean(), fc.string({ maxLength: 8 }), (root, verbose, before) => {
        const upstream = upstreamRendering(root, verbose);
        if (upstream === undefined) {
          expect(matchSnapshot(root, verbose, before)).toBeUndefined();
          return;
        }
        const matched = matchSnapshot(root, verbose, before + upstream.text);
        expect(matched).toBeDefined();
        expect(matched?.text).toBe(upstream.text);
        expect(matched?.treeIds).toEqual(upstream.treeIds);
        const mark = (id: string): string => `<${id}>`;
        expect(matched?.withIds(mark)).toBe(upstream.withIds(mark));
        expect(matched?.startIn(before + upstream.text)).toBe(before.length);
      }),
      { numRuns: 600 },
    );
  });

  it('does not read a text that differs from upstream\'s anywhere as the tree\'s', () => {
    fc.assert(
      fc.property(tree, fc.boolean(), fc.nat(), fc.constantFrom('drop', 'change', 'add'), (root, verbose, where, how) => {
        const upstream = upstreamRendering(root, verbose);
        fc.pre(upstream !== undefined && upstream.text.length > 0);
        const text = upstream?.text ?? '';
        const at = where % text.length;
        const altered = how === 'drop' ? text.slice(0, at) + text.slice(at + 1) : how === 'change' ? `${text.slice(0, at)}${text[at] === 'x' ? 'y' : 'x'}${text.slice(at + 1)}` : `${text.slice(0, at + 1)}x${text.slice(at + 1)}`;
        const matched = matchSnapshot(root, verbose, altered);
        // A text that lost or gained a character at its start is the same rendering after other text.
        if (matched !== undefined) {
          expect(altered.endsWith(matched.text)).toBe(true);
          expect(matched.text).toBe(text);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('leaves a tree with values upstream\'s JSON never has to upstream\'s formatter, or reads it the same', () => {
    const odd = fc.oneof(fc.constant(null), fc.constant({}), fc.constant([1, 2]), fc.constant({ toString: 'x' }));
    fc.assert(
      fc.property(tree, odd, fc.constantFrom('name', 'role', 'value', 'level'), fc.boolean(), (root, value, key, verbose) => {
        const child = node([node([], 'StaticText', 'x', {})], 'link', undefined, { [key]: value });
        const withOdd: SnapshotNode = { ...root, children: [...(root.children ?? []), child] };
        const upstream = upstreamRendering(withOdd, verbose);
        const matched = matchSnapshot(withOdd, verbose, upstream?.text ?? '');
        if (matched !== undefined) {
          expect(matched.text).toBe(upstream?.text);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reads upstream\'s lines for a small page', () => {
    const root: SnapshotNode = {
      id: '1_0',
      role: 'RootWebArea',
      name: 'Shop',
      focusable: true,
      focused: true,
      children: [
        { id: '1_1', role: 'link', name: 'Home', children: [{ id: '1_2', role: 'StaticText', name: 'Home' }] },
        { id: '1_3', role: 'combobox', name: 'Size', expandable: true, value: 'M', haspopup: 'listbox', children: [{ id: '1_4', role: 'option', name: 'M', value: 'M', selectable: true, selected: true }] },
        { id: '1_5', role: 'none', disableable: true, disabled: true, level: 2 },
      ],
    };
    const plain = [
      'uid=1_0 RootWebArea "Shop" focusable focused',
      '  uid=1_1 link "Home"',
      '  uid=1_3 combobox "Size" expandable haspopup="listbox" value="M"',
      '    uid=1_4 option "M" selected',
      '  uid=1_5 ignored disableable disabled level="2"',
      '',
    ].join('\n');
    const matched = matchSnapshot(root, false, `## Latest page snapshot\n${plain}`);
    expect(matched?.text).toBe(plain);
    expect(matched?.treeIds).toEqual(['1_0', '1_1', '1_2', '1_3', '1_4', '1_5']);
    expect(matched?.withIds((id) => `T${id}`)).toContain('  uid=T1_1 link "Home"\n  uid=T1_3 combobox');
    expect(matchSnapshot(root, true, plain)).toBeUndefined();
    expect(matchSnapshot(root, true, plain.replace('link "Home"\n', 'link "Home"\n    uid=1_2 "Home"\n'))?.treeIds).toHaveLength(6);
  });
});
