import type { HostConnection } from '../host/Host.js';
import { NO_HISTORY_FILTER, type HistoryFilter } from './Timeline.js';

/** What the selected profile's pane shows: its sessions, tabs and queue, or its history of calls. */
export type ProfileView = 'overview' | 'history';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  message: string;
}

/** Client-only state: what the user is looking at and what is in flight. Never sent anywhere. */
export interface UiState {
  selectedProfile: string | null;
  debug: boolean;
  connection: HostConnection;
  /** Why the last snapshot load failed, shown in place of the profile list. */
  loadError: string | null;
  /** Action keys (see actionKey) whose call or confirming event is still outstanding. */
  pending: Record<string, true>;
  toasts: Toast[];
  /** The tab shown in the live view, if one is open. */
  liveView: { profile: string; tabId: string } | null;
  view: ProfileView;
  historyFilter: HistoryFilter;
}

export function initialUiState(): UiState {
  return { selectedProfile: null, debug: false, connection: { state: 'connecting' }, loadError: null, pending: {}, toasts: [], liveView: null, view: 'overview', historyFilter: NO_HISTORY_FILTER };
}
