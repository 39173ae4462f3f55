import type { BrowserInfo, ProfileState } from './model.js';

/**
 * An external profile as its user thinks of it: connected to their browser or not. The daemon's lifecycle and the
 * browser's own connection state are two layers; the UIs show one word for both.
 * - `disconnected`: no daemon, so nothing is connected (the user's choice, or never connected).
 * - `connecting`: the daemon is starting and reaching the browser.
 * - `pending`: the daemon runs and connects when something first needs the browser.
 * - `connected`: the daemon holds a connection to the browser.
 * - `lost`: the daemon runs but the browser went away or is unreachable; it keeps retrying.
 * - `disconnecting`: the daemon is stopping; the browser itself is left running.
 * - `failed`: the daemon could not start or died (usually: the browser was not reachable when asked to connect).
 */
export type ExternalConnectionState = 'disconnected' | 'connecting' | 'pending' | 'connected' | 'lost' | 'disconnecting' | 'failed';

export const EXTERNAL_CONNECTION_LABELS: Record<ExternalConnectionState, string> = {
  disconnected: 'disconnected',
  connecting: 'connecting',
  pending: 'pending',
  connected: 'connected',
  lost: 'disconnected',
  disconnecting: 'disconnecting',
  failed: 'failed',
};

/** `browser` is the running daemon's report (null while there is none). */
export function externalConnectionState(state: ProfileState, browser: BrowserInfo | null): ExternalConnectionState {
  switch (state) {
    case 'stopped':
      return 'disconnected';
    case 'stopping':
      return 'disconnecting';
    case 'crashed':
      return 'failed';
    case 'starting':
      return 'connecting';
    case 'ready':
    case 'restarting':
      if (browser?.kind !== 'external') {
        return 'connecting';
      }
      return browser.state === 'disconnected' ? 'lost' : browser.state;
  }
}
