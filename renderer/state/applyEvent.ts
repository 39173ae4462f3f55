import type { DaemonEvent } from '../../shared/model.js';
import type { SupervisorEvent } from '../../shared/supervisor.js';
import { withProfileView, type ServerState } from './ServerState.js';

/**
 * Folds one pushed event into the projection. Pure: returns the same object when nothing changed, and new objects
 * only along the path that did, so narrow selectors keep their references.
 */
export function applyEvent(state: ServerState, event: SupervisorEvent): ServerState {
  if (event.type === 'profile') {
    return withProfileView(state, event.profile);
  }
  if (event.type === 'picture') {
    // Frames go to the picture feed, never into the store: they would re-render every row many times a second.
    return state;
  }
  // A daemon event for a profile the snapshot has not shown yet cannot be placed; the next snapshot will carry it.
  if (!Object.hasOwn(state.profiles, event.profile)) {
    return state;
  }
  return applyDaemonEvent(state, event.profile, event.event);
}

export function applyEvents(state: ServerState, events: readonly SupervisorEvent[]): ServerState {
  return events.reduce(applyEvent, state);
}

function applyDaemonEvent(state: ServerState, profile: string, event: DaemonEvent): ServerState {
  switch (event.type) {
    case 'daemon': {
      const entry = state.profiles[profile];
      if (!entry?.daemon) {
        return state;
      }
      const activityLog = event.activityLog ? { activityLog: event.activityLog } : {};
      const daemon = { ...entry.daemon, state: event.state, lastError: event.lastError, browserSilentSince: event.browserSilentSince ?? null, ...activityLog };
      return { ...state, profiles: { ...state.profiles, [profile]: { ...entry, daemon } } };
    }
    case 'session.updated': {
      const sessions = { ...state.sessions[profile], [event.session.id]: event.session };
      return { ...state, sessions: { ...state.sessions, [profile]: sessions } };
    }
    case 'session.closed': {
      const current = state.sessions[profile];
      if (!current || !Object.hasOwn(current, event.sessionId)) {
        return state;
      }
      const rest = Object.fromEntries(Object.entries(current).filter(([id]) => id !== event.sessionId));
      return { ...state, sessions: { ...state.sessions, [profile]: rest } };
    }
    case 'queue':
      return { ...state, queue: { ...state.queue, [profile]: event.queue } };
    case 'workers': {
      const entry = state.profiles[profile];
      if (!entry) {
        return state;
      }
      return { ...state, profiles: { ...state.profiles, [profile]: { ...entry, workers: event.workers } } };
    }
    case 'tabs':
      return { ...state, tabs: { ...state.tabs, [profile]: event.tabs } };
    case 'policies':
      return { ...state, policies: { ...state.policies, [profile]: event.policies } };
    case 'activity':
      // Timelines are kept apart from the server projection (see ActivityState).
      return state;
    case 'picture':
      return state;
  }
}
