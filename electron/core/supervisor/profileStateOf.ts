import type { DaemonState, ProfileState } from '../../../shared/model.js';

/** A running daemon's own state, as the profile's: a daemon relaunching its Chrome is restarting, not ready. */
export function profileStateOf(state: DaemonState): ProfileState {
  switch (state) {
    case 'starting':
    case 'stopping':
    case 'ready':
      return state;
    case 'degraded':
      return 'restarting';
    default:
      return 'crashed';
  }
}
