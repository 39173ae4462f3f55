import type { ActivityEntry, ActivityOutcome } from '../../shared/activity.js';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import { shortId } from '../format/shortId.js';

/**
 * The history of one profile the UI has open: every session's calls, loaded from the daemon's log, then grown by
 * pushed `activity` events. Kept apart from the server projection, which a reconnect replaces; a history is only
 * reloaded when opened again. Entries are kept oldest first (the log's order); the view shows them newest first.
 */
export interface Timeline {
  profile: string;
  state: 'loading' | 'ready' | 'failed';
  entries: readonly ActivityEntry[];
  /** The log held more than was loaded; the oldest are not shown. */
  truncated: boolean;
  error: string | null;
}

/** What the history view shows: null is "any". */
export interface HistoryFilter {
  session: string | null;
  tool: string | null;
  outcome: ActivityOutcome | null;
}

export const NO_HISTORY_FILTER: HistoryFilter = { session: null, tool: null, outcome: null };

/** How many entries a timeline keeps; the oldest go first. */
export const TIMELINE_LIMIT = 20_000;

export function loadingTimeline(profile: string): Timeline {
  return { profile, state: 'loading', entries: [], truncated: false, error: null };
}

/** A pushed entry of the open profile joins its timeline (also while it loads: the load is merged with it). */
export function appendActivity(timeline: Timeline | null, event: SupervisorEvent): Timeline | null {
  if (!timeline || event.type !== 'daemon' || event.event.type !== 'activity' || event.profile !== timeline.profile) {
    return timeline;
  }
  return withEntries(timeline, [...timeline.entries, event.event.entry]);
}

/** The log's answer arrives: it is merged with what was pushed meanwhile, each entry once, in time order. */
export function timelineLoaded(timeline: Timeline, loaded: readonly ActivityEntry[], truncated: boolean): Timeline {
  const ids = new Set(loaded.map((entry) => entry.id));
  const pushed = timeline.entries.filter((entry) => !ids.has(entry.id));
  const merged = [...loaded, ...pushed].sort((a, b) => a.at - b.at);
  const limited = withEntries(timeline, merged);
  return { ...limited, state: 'ready', truncated: truncated || limited.truncated, error: null };
}

function withEntries(timeline: Timeline, entries: ActivityEntry[]): Timeline {
  if (entries.length <= TIMELINE_LIMIT) {
    return { ...timeline, entries };
  }
  return { ...timeline, entries: entries.slice(entries.length - TIMELINE_LIMIT), truncated: true };
}

/** The entries the filter lets through, newest first: what happened last is what a person looks for first. */
export function historyRows(entries: readonly ActivityEntry[], filter: HistoryFilter): ActivityEntry[] {
  const rows: ActivityEntry[] = [];
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (
      entry !== undefined &&
      (filter.session === null || entry.session === filter.session) &&
      (filter.tool === null || entry.tool === filter.tool) &&
      (filter.outcome === null || entry.outcome === filter.outcome)
    ) {
      rows.push(entry);
    }
  }
  return rows;
}

export interface HistoryChoice {
  value: string;
  label: string;
}

/**
 * What the filters offer: the sessions and tools the history holds (a session by its label when it had one), and
 * the one chosen now even when none of its entries are loaded, so a filter never silently shows something else.
 */
export function historyChoices(entries: readonly ActivityEntry[], filter: HistoryFilter): { sessions: HistoryChoice[]; tools: string[] } {
  const sessions = new Map<string, string>();
  const tools = new Set<string>();
  for (const entry of entries) {
    sessions.set(entry.session, entry.label ?? shortId(entry.session));
    tools.add(entry.tool);
  }
  if (filter.session !== null && !sessions.has(filter.session)) {
    sessions.set(filter.session, shortId(filter.session));
  }
  if (filter.tool !== null) {
    tools.add(filter.tool);
  }
  return {
    sessions: [...sessions].map(([value, label]) => ({ value, label })).sort((a, b) => a.label.localeCompare(b.label)),
    tools: [...tools].sort(),
  };
}
