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

  it('redacts URLs in the text, percent-encoded values and fragments too', () => {
    expect(summaryOf('Successfully navigated to https://a:p%40ss@site.example/?token=a%2Fb#access_token=AT&id_token=ID.', [])).toBe(
      'Successfully navigated to https://redacted:redacted@site.example/?token=[redacted]#access_token=[redacted]&id_token=[redacted].',
    );
  });

  it('redacts a URL that starts in the kept part whole, however long', () => {
    const url = `https://site.example/${'p'.repeat(300)}?token=t0ken-value`;
    const summary = summaryOf(`${'x'.repeat(150)} ${url} after`, []);
    expect(summary).not.toContain('t0ken');
    expect(summary).toHaveLength(201);
    const huge = summaryOf(`${'x'.repeat(150)} https://u:${'s'.repeat(10_000)}@site.example/ after`, []);
    expect(huge).toBe(`${'x'.repeat(150)} [redacted]…`);
  });

  it('cuts out a value that runs past the part it reads', () => {
    const secret = `S${'e'.repeat(50)}cret`;
    const text = `${'x'.repeat(4290)}${secret}`;
    expect(summaryOf(text, [secret], 4300)).toBe(`${'x'.repeat(4290)}[redacted]`);
  });
});
