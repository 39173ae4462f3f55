import { promises as fs } from 'node:fs';
import { activityEntrySchema, type ActivityEntry, type ActivityOutcome, type ActivityQueryResult } from '../../../shared/activity.js';
import { isNodeError } from '../platform/secureFs.js';
import { listSegments } from './activitySegments.js';

export interface ActivityFilter {
  session?: string | undefined;
  since?: number | undefined;
  /** Only calls of these tools (any tool when absent). */
  tools?: readonly string[] | undefined;
  /** Only calls that ended so (any outcome when absent). */
  outcomes?: readonly ActivityOutcome[] | undefined;
  limit: number;
}

/**
 * Reads the newest entries that match, straight from the files (the daemon does not need to run). Segments are read
 * newest first and only until enough entries are found; a segment last written before `since` is skipped whole. A
 * line that does not parse (the partial last line a crash left, or anything else damaged) is skipped.
 */
export async function readActivityLog(dir: string, filter: ActivityFilter): Promise<ActivityQueryResult> {
  const segments = await listSegments(dir);
  const newestFirst: ActivityEntry[][] = [];
  let found = 0;
  for (const segment of segments.reverse()) {
    if (found > filter.limit || (filter.since !== undefined && segment.mtimeMs < filter.since)) {
      break;
    }
    const entries = parseSegment(await readOrEmpty(segment.path)).filter((entry) => matches(entry, filter));
    newestFirst.push(entries);
    found += entries.length;
  }
  const all = newestFirst.reverse().flat();
  const truncated = all.length > filter.limit;
  return { entries: truncated ? all.slice(all.length - filter.limit) : all, truncated };
}

export function parseSegment(text: string): ActivityEntry[] {
  const entries: ActivityEntry[] = [];
  for (const line of text.split('\n')) {
    if (line === '') {
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = activityEntrySchema.safeParse(json);
    if (parsed.success) {
      entries.push(parsed.data);
    }
  }
  return entries;
}

export function matches(entry: ActivityEntry, filter: Omit<ActivityFilter, 'limit'>): boolean {
  return (
    (filter.session === undefined || entry.session === filter.session) &&
    (filter.since === undefined || entry.at >= filter.since) &&
    (filter.tools === undefined || filter.tools.includes(entry.tool)) &&
    (filter.outcomes === undefined || filter.outcomes.includes(entry.outcome))
  );
}

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (error) {
    if (isNodeError(error) && error.code === 'ENOENT') {
      return '';
    }
    throw error;
  }
}
