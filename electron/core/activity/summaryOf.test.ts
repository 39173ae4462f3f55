import { describe, expect, it } from 'vitest';
import { summaryOf } from './summaryOf.js';

describe('summaryOf', () => {
  it('cuts typed values out before cutting the text', () => {
    expect(summaryOf('textbox "Password" value="hunter22"', ['hunter22'])).toBe('textbox "Password" value="[redacted]"');
    const long = `${'x'.repeat(195)}hunter22 and more`;
    const summary = summaryOf(long, ['hunter22']);
    expect(summary).not.toContain('hunt');
    expect(summary).toBe(`${'x'.repeat(195)}[reda…`);
  });

  it('keeps short values in the text (a single key would blank every such letter)', () => {
    expect(summaryOf('a b c', ['a'])).toBe('a b c');
  });

  it('cuts long text to 200 characters and marks the cut', () => {
    expect(summaryOf('y'.repeat(500), [])).toBe(`${'y'.repeat(200)}…`);
    expect(summaryOf('short', [])).toBe('short');
  });
});
