import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  formatPageLine,
  isLastPageRefusal,
  isSelectionNote,
  joinSections,
  mayHoldSelectionNote,
  mentionsNavigation,
  pagesInResponse,
  parsePageLine,
  PINNED_UPSTREAM_VERSION,
  rewriteOutputUids,
  snapshotUids,
  splitSections,
  tabIdInText,
} from './upstreamText.js';

describe('the pinned upstream', () => {
  it('is the version installed, so the formats read here are the ones it prints', () => {
    const pkg: unknown = createRequire(import.meta.url)('chrome-devtools-mcp/package.json');
    expect(pkg).toMatchObject({ version: PINNED_UPSTREAM_VERSION });
  });
});

describe('page list text', () => {
  it('parses the line forms upstream prints', () => {
    expect(parsePageLine('1: about:blank')).toEqual({ id: 1, title: '', url: 'about:blank', selected: false, isolatedContext: null });
    expect(parsePageLine('2: Form page (data:text/html,%3Ctitle%3E) [selected]')).toEqual({
      id: 2,
      title: 'Form page',
      url: 'data:text/html,%3Ctitle%3E',
      selected: true,
      isolatedContext: null,
    });
    expect(parsePageLine('4: ISO (data:text/html,<p>iso) [selected] isolatedContext=ctxA')).toMatchObject({ id: 4, title: 'ISO', selected: true, isolatedContext: 'ctxA' });
    // data: URLs are printed raw, spaces and parentheses included.
    expect(parsePageLine('3: A (b) title (data:text/html,<p onclick="f(1)">x y</p>)')).toMatchObject({
      title: 'A (b) title',
      url: 'data:text/html,<p onclick="f(1)">x y</p>',
    });
    expect(parsePageLine('## Pages')).toBeUndefined();
  });

  it('formats a line back the way upstream does', () => {
    const line = '2: Form page (https://example.com/) [selected] isolatedContext=ctx';
    const page = parsePageLine(line);
    expect(page && formatPageLine(page, page.selected)).toBe(line);
  });

  it('splits and joins sections without losing text', () => {
    const text = 'Successfully navigated to x.\n## Pages\n1: about:blank\n2: x [selected]\n## Latest page snapshot\nuid=1_0 RootWebArea';
    const sections = splitSections(text);
    expect(sections.map((s) => s.heading)).toEqual([null, '## Pages', '## Latest page snapshot']);
    expect(joinSections(sections)).toBe(text);
    expect(joinSections(splitSections('## Pages\n1: a'))).toBe('## Pages\n1: a');
    expect(pagesInResponse(text)?.map((p) => p.id)).toEqual([1, 2]);
    expect(pagesInResponse('no pages')).toBeUndefined();
    expect(joinSections([{ heading: null, body: null }, { heading: '## Pages', body: '1: a' }])).toBe('## Pages\n1: a');
  });

  it('handles a snapshot of 200,000 lines (no per-line spreading that could overflow the stack)', () => {
    const body = Array.from({ length: 200_000 }, (_, i) => `  uid=1_${i} listitem`).join('\n');
    const text = `## Latest page snapshot\n${body}`;
    const sections = splitSections(text);
    expect(sections).toHaveLength(1);
    expect(joinSections(sections)).toBe(text);
  });
});

describe('snapshot uids in text', () => {
  it('rewrites every uid mention form upstream prints', () => {
    const text = [
      'uid=1_0 RootWebArea "T"',
      '  uid=1_12 button "Go"',
      'Error: Element uid "2_6" not found on page 2.',
      'Failed to interact with the element with uid 1_6. timeout',
      'color: red (uid: "3_1")',
      'Took a screenshot of node with uid "4_2".',
      'a 1_2 that is not a uid stays',
    ].join('\n');
    const out = rewriteOutputUids(text, (raw) => `T(${raw})`);
    expect(out).toBe(
      [
        'uid=T(1_0) RootWebArea "T"',
        '  uid=T(1_12) button "Go"',
        'Error: Element uid "T(2_6)" not found on page 2.',
        'Failed to interact with the element with uid T(1_6). timeout',
        'color: red (uid: "T(3_1)")',
        'Took a screenshot of node with uid "T(4_2)".',
        'a 1_2 that is not a uid stays',
      ].join('\n'),
    );
  });

  it('collects the uids a snapshot defines', () => {
    expect([...snapshotUids('uid=1_0 RootWebArea\n  uid=1_2 button "x uid=9_9"\nno uid here')]).toEqual(['1_0', '1_2']);
  });
});

describe('single messages', () => {
  it('reads the tab id of a get_tab_id answer', () => {
    expect(tabIdInText('Tab ID: 33E2A1F5BA')).toBe('33E2A1F5BA');
    expect(tabIdInText('Error: No page found')).toBeUndefined();
  });

  it('tells the last-tab refusal of close_page from a list', () => {
    expect(isLastPageRefusal('The last open page cannot be closed. It is fine to keep it open.\n## Pages\n1: about:blank [selected]')).toBe(true);
    expect(isLastPageRefusal('## Pages\n1: about:blank [selected]')).toBe(false);
  });

  it('finds upstream\'s selected-page note and nothing else', () => {
    const note = 'Note: the previously selected page was closed. Page 1 is now selected.';
    expect(mayHoldSelectionNote(`x\n${note}`)).toBe(true);
    expect(isSelectionNote(note)).toBe(true);
    expect(isSelectionNote(`${note} And more`)).toBe(false);
    expect(mayHoldSelectionNote('Note: something else')).toBe(false);
  });

  it('sees navigations at the start of a line only', () => {
    expect(mentionsNavigation('Successfully clicked\nPage navigated to https://example.com/.')).toBe(true);
    expect(mentionsNavigation('Successfully navigated to data:text/html,x.')).toBe(true);
    expect(mentionsNavigation('a page wrote: Page navigated to x')).toBe(false);
  });
});
