import { EXTERNAL_CONNECTION_LABELS, externalConnectionState } from '../../shared/externalConnection.js';
import type { ProfileView } from '../../shared/supervisor.js';

const STATE_LABELS: Record<ProfileView['state'], string> = {
  stopped: 'stopped',
  starting: 'starting…',
  ready: 'running',
  crashed: 'crashed',
  restarting: 'restarting…',
  stopping: 'stopping…',
};

/**
 * A profile's line in the tray menu. A browser the user runs is connected or not: "running" would suggest that
 * tabmux runs it.
 */
export function trayProfileLabel(profile: ProfileView): string {
  return `${stateLabel(profile)}${waitingLabel(profile)}`;
}

function stateLabel(profile: ProfileView): string {
  if (profile.unanswered) {
    return `${profile.name}: not answering`;
  }
  if (profile.kind === 'launched') {
    return `${profile.name}: ${STATE_LABELS[profile.state]}`;
  }
  const state = externalConnectionState(profile.state, profile.status?.browser ?? null);
  return `${profile.name}: ${state === 'lost' ? 'disconnected, retrying' : EXTERNAL_CONNECTION_LABELS[state]}`;
}

/** Sessions waiting on a person (a question, a call to approve): what the dashboard's "Needs you" lists. */
function waitingLabel(profile: ProfileView): string {
  const waiting = profile.status?.sessions.filter((session) => session.waitingForHuman).length ?? 0;
  return waiting === 0 ? '' : ` — ${waiting} waiting for you`;
}
