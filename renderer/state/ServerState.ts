import type { DaemonStatus, ProfileState, QueueEntry, SessionInfo, TabInfo, WorkerInfo } from '../../shared/model.js';
import type { ProfileView, SupervisorSnapshot } from '../../shared/supervisor.js';
import type { PolicyRule } from '../../shared/policy.js';

/** The daemon's own facts, without the lists that live in their own slices. */
export type DaemonSummary = Omit<DaemonStatus, 'sessions' | 'queue' | 'workers'>;

export interface ProfileEntry {
  name: string;
  /** `external`: a browser the user runs, which the daemon connects to at `endpoint` (redacted). */
  kind: ProfileView['kind'];
  endpoint: string | null;
  state: ProfileState;
  lastError: string | null;
  /** A daemon holds the profile but does not answer (its process stopped or stuck); `lastError` says so, Stop ends it. */
  unanswered: boolean;
  /** Null while the daemon is not running or not yet reachable. */
  daemon: DaemonSummary | null;
  workers: WorkerInfo[];
}

/**
 * Server-owned state: a projection of the supervisor snapshot plus every event since. Each slice is keyed by
 * profile name so one profile's events never touch another's references (and so never re-render its views).
 */
export interface ServerState {
  /** True once a snapshot arrived; until then the UI shows a loading state rather than "no profiles". */
  loaded: boolean;
  profiles: Record<string, ProfileEntry>;
  sessions: Record<string, Record<string, SessionInfo>>;
  tabs: Record<string, TabInfo[]>;
  queue: Record<string, QueueEntry[]>;
  /** Each profile's policy rules as its daemon last pushed them (a change from anywhere); absent until one is. */
  policies: Record<string, PolicyRule[]>;
}

export function emptyServerState(): ServerState {
  return { loaded: false, profiles: {}, sessions: {}, tabs: {}, queue: {}, policies: {} };
}

export function profileEntryOf(view: ProfileView): ProfileEntry {
  const { name, kind, endpoint, state, lastError, unanswered } = view;
  if (!view.status) {
    return { name, kind, endpoint, state, lastError, unanswered, daemon: null, workers: [] };
  }
  return { name, kind, endpoint, state, lastError, unanswered, daemon: summaryOf(view.status), workers: view.status.workers };
}

// Spelled out rather than spread-and-omit so a new status field is a compile error here, not a silent copy.
function summaryOf(status: DaemonStatus): DaemonSummary {
  return {
    protocolVersion: status.protocolVersion,
    version: status.version,
    profile: status.profile,
    pid: status.pid,
    socketPath: status.socketPath,
    startedAt: status.startedAt,
    state: status.state,
    lastError: status.lastError,
    browser: status.browser,
    chrome: status.chrome,
    upstream: status.upstream,
    settings: status.settings,
    ...(status.activityLog ? { activityLog: status.activityLog } : {}),
    ...(status.lifetime ? { lifetime: status.lifetime } : {}),
    browserSilentSince: status.browserSilentSince ?? null,
  };
}

export function sessionMapOf(sessions: readonly SessionInfo[]): Record<string, SessionInfo> {
  const map: Record<string, SessionInfo> = {};
  for (const session of sessions) {
    map[session.id] = session;
  }
  return map;
}

/** Replaces everything known about one profile with a fresh view of it. */
export function withProfileView(state: ServerState, view: ProfileView): ServerState {
  return {
    ...state,
    profiles: { ...state.profiles, [view.name]: profileEntryOf(view) },
    sessions: { ...state.sessions, [view.name]: sessionMapOf(view.status?.sessions ?? []) },
    tabs: { ...state.tabs, [view.name]: view.tabs },
    queue: { ...state.queue, [view.name]: view.status?.queue ?? [] },
  };
}

/** A snapshot replaces the whole projection: profiles it does not list are gone. */
export function fromSnapshot(snapshot: SupervisorSnapshot): ServerState {
  let state: ServerState = { ...emptyServerState(), loaded: true };
  for (const view of snapshot.profiles) {
    state = withProfileView(state, view);
  }
  return state;
}
