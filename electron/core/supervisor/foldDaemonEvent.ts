import type { DaemonEvent, DaemonStatus, TabInfo } from '../../../shared/model.js';

export interface DaemonState {
  status: DaemonStatus;
  tabs: TabInfo[];
}

/**
 * Folds one pushed daemon event into the supervisor's copy of that daemon's state, so a snapshot taken between
 * events matches what a UI that folded every event would show. Pure; returns new objects only where something changed.
 */
export function foldDaemonEvent(state: DaemonState, event: DaemonEvent): DaemonState {
  const { status } = state;
  switch (event.type) {
    case 'daemon': {
      const activityLog = event.activityLog ? { activityLog: event.activityLog } : {};
      return { ...state, status: { ...status, state: event.state, lastError: event.lastError, browserSilentSince: event.browserSilentSince ?? null, ...activityLog } };
    }
    case 'session.updated': {
      const index = status.sessions.findIndex((session) => session.id === event.session.id);
      const sessions = index < 0 ? [...status.sessions, event.session] : status.sessions.map((session, at) => (at === index ? event.session : session));
      return { ...state, status: { ...status, sessions } };
    }
    case 'session.closed':
      return { ...state, status: { ...status, sessions: status.sessions.filter((session) => session.id !== event.sessionId) } };
    case 'queue':
      return { ...state, status: { ...status, queue: event.queue } };
    case 'workers':
      return { ...state, status: { ...status, workers: event.workers } };
    case 'tabs':
      return { ...state, tabs: event.tabs };
    case 'activity':
    case 'picture':
    case 'policies':
      // The log and the policies are read from the daemon on demand, and frames only pass through; the supervisor
      // keeps no copy.
      return state;
  }
}
