import { isRecord } from '../../shared/isRecord.js';
import type { ProfileView, SupervisorEvent, SupervisorMethod, SupervisorResults } from '../../shared/supervisor.js';

/**
 * Shape checks for what arrives from the supervisor. They look at the fields the store keys on, not every nested
 * field: the goal is to reject a wrong message (an old server, a proxy's error page) with a clear error instead of
 * corrupting the store, not to re-validate the daemon's own model.
 */

const PROFILE_STATES: ReadonlySet<string> = new Set(['stopped', 'starting', 'ready', 'crashed', 'restarting', 'stopping']);
const DAEMON_EVENT_TYPES: ReadonlySet<string> = new Set(['daemon', 'session.updated', 'session.closed', 'queue', 'workers', 'tabs']);

export function isProfileView(value: unknown): value is ProfileView {
  return (
    isRecord(value) &&
    typeof value['name'] === 'string' &&
    typeof value['state'] === 'string' &&
    PROFILE_STATES.has(value['state']) &&
    (value['lastError'] === null || typeof value['lastError'] === 'string') &&
    (value['status'] === null || isStatusLike(value['status'])) &&
    Array.isArray(value['tabs'])
  );
}

function isStatusLike(value: unknown): boolean {
  return (
    isRecord(value) &&
    Array.isArray(value['sessions']) &&
    Array.isArray(value['queue']) &&
    Array.isArray(value['workers']) &&
    isRecord(value['chrome'])
  );
}

export function isSupervisorEvent(value: unknown): value is SupervisorEvent {
  if (!isRecord(value)) {
    return false;
  }
  if (value['type'] === 'profile') {
    return isProfileView(value['profile']);
  }
  if (value['type'] === 'daemon') {
    const event = value['event'];
    return (
      typeof value['profile'] === 'string' &&
      isRecord(event) &&
      typeof event['type'] === 'string' &&
      DAEMON_EVENT_TYPES.has(event['type'])
    );
  }
  return false;
}

type ResultGuards = { [M in SupervisorMethod]: (value: unknown) => value is SupervisorResults[M] };

const RESULT_GUARDS: ResultGuards = {
  'supervisor/snapshot': (value): value is SupervisorResults['supervisor/snapshot'] =>
    isRecord(value) && Array.isArray(value['profiles']) && value['profiles'].every(isProfileView),
  'supervisor/profile.start': isProfileView,
  'supervisor/profile.stop': isProfileView,
  'supervisor/profile.restart': isProfileView,
  // Forwarded daemon results are objects whose shape depends on the method; callers narrow the fields they use.
  'supervisor/daemon': (value): value is SupervisorResults['supervisor/daemon'] => isRecord(value),
};

export function isSupervisorResult<M extends SupervisorMethod>(method: M, value: unknown): value is SupervisorResults[M] {
  return RESULT_GUARDS[method](value);
}
