import { describe, expect, it } from 'vitest';
import { MAX_SHOWN_CHARS, shownUrl } from './shownUrl.js';

describe('shownUrl', () => {
  it('keeps a URL of ordinary length whole', () => {
    const url = `https://example.com/${'a'.repeat(MAX_SHOWN_CHARS - 20)}`;
    expect(url).toHaveLength(MAX_SHOWN_CHARS);
    expect(shownUrl(url)).toBe(url);
  });

  it('keeps the start of a longer one and says how much was left out', () => {
    const url = `https://example.com/#${'x'.repeat(1_900_000)}`;
    const shown = shownUrl(url);
    expect(shown.startsWith('https://example.com/#xxx')).toBe(true);
    expect(shown.endsWith(`… (${url.length - MAX_SHOWN_CHARS} more characters)`)).toBe(true);
    expect(shown.length).toBeLessThan(MAX_SHOWN_CHARS + 40);
  });
});
