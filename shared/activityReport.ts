import { ACTIVITY_OUTCOMES, type ActivityEntry, type ActivityOutcome } from './activity.js';

export interface ActivityReportMeta {
  profile: string;
  session: string;
  exportedAt: number;
  /** The entries' pictures by name (base64 JPEG), embedded in the HTML report; entries without one show none. */
  pictures?: ReadonlyMap<string, string>;
}

/** At most this many pictures go into one report, the newest, so a long history stays a file one can open. */
export const REPORT_PICTURE_LIMIT = 300;

/** The picture names of the entries a report embeds: the newest `REPORT_PICTURE_LIMIT`. */
export function reportPictureNames(entries: readonly ActivityEntry[]): string[] {
  return entries.flatMap((entry) => (entry.picture === undefined ? [] : [entry.picture])).slice(-REPORT_PICTURE_LIMIT);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Everything a page or an agent wrote is text here: the five characters HTML treats as markup are escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const OUTCOME_COLORS: Record<ActivityOutcome, string> = {
  ok: '#1a7f37',
  tool_error: '#9a6700',
  rejected: '#cf222e',
  cancelled: '#57606a',
  timed_out: '#bc4c00',
  worker_crashed: '#8250df',
  failed: '#cf222e',
};

const STYLE = `.shot{display:block;max-width:240px;max-height:150px;border:1px solid #d0d7de;border-radius:4px;margin-bottom:4px}
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:20px;margin:0 0 4px}
.meta{color:#57606a;margin-bottom:16px}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #d0d7de;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}
pre{margin:0;white-space:pre-wrap;word-break:break-all;font:12px/1.4 ui-monospace,monospace}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;white-space:nowrap}
.muted{color:#57606a}
.counts span{margin-right:12px}`;

/**
 * A session's activity as one HTML file that needs nothing else: inline CSS, no script, and a Content-Security-Policy
 * that forbids scripts and remote loads, so even a string that escaped escaping could not run or call home. Every
 * value from the log is escaped.
 */
export function renderActivityReport(entries: readonly ActivityEntry[], meta: ActivityReportMeta): string {
  const counts = ACTIVITY_OUTCOMES.map((outcome) => [outcome, entries.filter((entry) => entry.outcome === outcome).length] as const).filter(([, count]) => count > 0);
  const label = entries.find((entry) => entry.label !== null)?.label ?? null;
  const rows = entries.map((entry) => renderRow(entry, meta.pictures)).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>tabmux activity: ${escapeHtml(meta.session)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Activity of session ${escapeHtml(meta.session)}${label === null ? '' : ` (${escapeHtml(label)})`}</h1>
<div class="meta">profile ${escapeHtml(meta.profile)} · ${entries.length} calls · exported ${escapeHtml(new Date(meta.exportedAt).toISOString())}</div>
<div class="counts">${counts.map(([outcome, count]) => `<span>${badge(outcome)} ${count}</span>`).join('')}</div>
<table>
<thead><tr><th>time</th><th>tool</th><th>outcome</th><th>ms</th><th>arguments</th><th>page</th><th>answer</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</body>
</html>
`;
}

function badge(outcome: ActivityOutcome): string {
  return `<span class="badge" style="background:${OUTCOME_COLORS[outcome]}">${escapeHtml(outcome.replace('_', ' '))}</span>`;
}

function renderRow(entry: ActivityEntry, pictures: ReadonlyMap<string, string> | undefined): string {
  const picture = entry.picture === undefined ? undefined : pictures?.get(entry.picture);
  const page = [
    picture !== undefined && BASE64.test(picture) ? `<img class="shot" alt="the tab after ${escapeHtml(entry.tool)}" src="data:image/jpeg;base64,${picture}">` : '',
    entry.pageBefore ? `<div class="muted">before: ${escapeHtml(entry.pageBefore.url)}</div>` : '',
    entry.pageAfter ? `<div>after: ${escapeHtml(entry.pageAfter.url)}</div>` : '',
    ...entry.opened.map((opened) => `<div>opened: page ${opened.pageId} ${escapeHtml(opened.url)}</div>`),
  ].join('');
  const redacted = entry.redacted.length > 0 ? `<div class="muted">redacted: ${escapeHtml(entry.redacted.join(', '))}</div>` : '';
  const error = entry.error ? `<div><b>${escapeHtml(entry.error.code)}</b>: ${escapeHtml(entry.error.message)}</div>` : '';
  return `<tr data-outcome="${escapeHtml(entry.outcome)}"><td>${escapeHtml(new Date(entry.at).toISOString())}</td><td>${escapeHtml(entry.tool)}</td><td>${badge(entry.outcome)}</td><td>${entry.durationMs}</td><td><pre>${escapeHtml(JSON.stringify(entry.args, null, 2))}</pre>${redacted}</td><td>${page}</td><td>${error}<pre>${escapeHtml(entry.summary)}</pre></td></tr>`;
}

/** The JSON export: the same entries as the log holds them, with what they are. */
export function activityExport(entries: readonly ActivityEntry[], meta: ActivityReportMeta): { format: 'tabmux-activity'; version: 1; profile: string; session: string; exportedAt: number; entries: readonly ActivityEntry[] } {
  return { format: 'tabmux-activity', version: 1, profile: meta.profile, session: meta.session, exportedAt: meta.exportedAt, entries };
}
