import type { ActivityEntry } from '../../shared/activity.js';
import type { SupervisorEvent } from '../../shared/supervisor.js';

/**
 * The one session history the UI has open: loaded from the daemon's log, then grown by pushed `activity` events.
 * Kept apart from the server projection, which a reconnect replaces; a history is only reloaded when opened again.
 */
export interface Timeline {
  profile: string;
  session: string;
  state: 'loading' | 'ready' | 'failed';
  entries: readonly ActivityEntry[];
  /** The log held more than was loaded; the oldest are not shown. */
  truncated: boolean;
  error: string | null;
}

/** How many entries a timeline keeps; the oldest go first. */
export const TIMELINE_LIMIT = 20_000;

export function loadingTimeline(profile: string, session: string): Timeline {
  return { profile, session, state: 'loading', entries: [], truncated: false, error: null };
}

/** A pushed entry of the open session joins its timeline (also while it loads: the load is merged with it). */
export function appendActivity(timeline: Timeline | null, event: SupervisorEvent): Timeline | null {
  if (!timeline || event.type !== 'daemon' || event.event.type !== 'activity' || event.profile !== timeline.profile) {
    return timeline;
  }
  const entry = event.event.entry;
  if (entry.session !== timeline.session) {
    return timeline;
  }
  return withEntries(timeline, [...timeline.entries, entry]);
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
