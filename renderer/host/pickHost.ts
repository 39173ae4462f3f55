import { ElectronHost } from './ElectronHost.js';
import type { Host } from './Host.js';
import { UnavailableHost } from './UnavailableHost.js';
import { WebSocketHost } from './WebSocketHost.js';
import { takeAccessToken, webSocketUrl } from './accessToken.js';

/** The tray window has the preload bridge; anything else is the web dashboard served by `tabmux dashboard`. */
export function pickHost(win: Window): Host {
  if (win.tabmux) {
    return new ElectronHost(win.tabmux);
  }
  if (win.location.protocol === 'file:') {
    return new UnavailableHost('This page was opened from disk. Use the tabmux tray app, or run "tabmux dashboard" and open the link it prints.');
  }
  const token = takeAccessToken(win.location, win.history, safeSessionStorage(win));
  if (token === null) {
    // The server answers nothing without it; a socket would only be refused, again and again.
    return new UnavailableHost(
      'This tab has no access token. Open the full link "tabmux dashboard" printed (it ends in #token=...): the token is kept in the tab that opened it, not shared with other tabs.',
    );
  }
  return new WebSocketHost({ url: webSocketUrl(win.location, token) });
}

function safeSessionStorage(win: Window): Storage | null {
  try {
    return win.sessionStorage;
  } catch {
    // Storage throws in some sandboxed or file:// contexts; the token then lives only in the address.
    return null;
  }
}
