import type { ActivityEntry } from '../../shared/activity.js';

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One entry on one line: time, session, tool, outcome, duration, arguments, the page after, and what came back. */
export function formatActivityLine(entry: ActivityEntry): string {
  const who = entry.label === null ? entry.session : `${entry.session} (${entry.label})`;
  const outcome = entry.error ? `${entry.outcome}:${entry.error.code}` : entry.outcome;
  const parts = [new Date(entry.at).toISOString(), who, entry.tool, outcome, `${entry.durationMs}ms`, clip(JSON.stringify(entry.args), 160)];
  if (entry.pageAfter) {
    parts.push(`@ ${clip(entry.pageAfter.url, 120)}`);
  }
  for (const opened of entry.opened) {
    parts.push(`+page ${opened.pageId} ${clip(opened.url, 80)}`);
  }
  const answer = entry.error?.message ?? entry.summary;
  if (answer !== '') {
    parts.push(`— ${clip(answer, 120)}`);
  }
  // One line per call; other terminal controls are escaped where the CLI prints (runCommand).
  return parts.join('  ').replaceAll('\n', '⏎');
}
