import { describe, expect, it } from 'vitest';
import { formatPageLine, joinSections, pagesInResponse, parsePageLine, splitSections } from './pageListText.js';

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
