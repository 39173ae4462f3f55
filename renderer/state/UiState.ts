import type { HostConnection } from '../host/Host.js';

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
}

export function initialUiState(): UiState {
  return { selectedProfile: null, debug: false, connection: { state: 'connecting' }, loadError: null, pending: {}, toasts: [], liveView: null };
}
