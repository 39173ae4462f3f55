import { describe, expect, it } from 'vitest';
import { ACTIVITY_FORMAT_VERSION, type ActivityEntry } from './activity.js';
import { escapeHtml, renderActivityReport } from './activityReport.js';

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>&';

describe('renderActivityReport', () => {
  it('escapes every value and holds no script', () => {
    const entry: ActivityEntry = {
      v: ACTIVITY_FORMAT_VERSION,
      id: 'x-1',
      session: 'sess-00000000000000aa',
      label: HOSTILE,
      tool: 'evaluate_script',
      args: { function: HOSTILE },
      redacted: [],
      at: 0,
      durationMs: 3,
      outcome: 'ok',
      error: null,
      summary: HOSTILE,
      pageBefore: { pageId: 1, url: `https://a.example/${HOSTILE}` },
      pageAfter: null,
      opened: [],
    };
    const html = renderActivityReport([entry], { profile: 'default', session: entry.session, exportedAt: 0 });
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain(escapeHtml(HOSTILE));
    expect(html).toContain("default-src 'none'");
    expect(escapeHtml(`"'<>&`)).toBe('&#34;&#39;&#60;&#62;&#38;');
  });
});
