/**
 * The dashboard server prints a link carrying a random token (`#token=...`; `?token=...` from older links). The token
 * is kept in this tab's sessionStorage so a reload still works, and removed from the address bar so it does not end
 * up in screenshots. It is sent explicitly with the WebSocket handshake, never kept in a cookie: a cookie belongs to
 * every tab of the browser, and agents may drive other tabs of that very browser.
 */

const STORAGE_KEY = 'tabmux.token';

/** Reads the token from a location's hash or query; the hash wins because it never reaches server logs. */
export function readToken(hash: string, search: string): string | null {
  const fromHash = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  if (fromHash) {
    return fromHash;
  }
  const fromQuery = new URLSearchParams(search).get('token');
  return fromQuery || null;
}

/** Takes the token from the page address (or from this tab's storage) and clears it from the address bar. */
export function takeAccessToken(
  location: Pick<Location, 'hash' | 'search' | 'href'>,
  history: Pick<History, 'replaceState' | 'state'>,
  storage: Pick<Storage, 'getItem' | 'setItem'> | null,
): string | null {
  const token = readToken(location.hash, location.search);
  if (!token) {
    return storage?.getItem(STORAGE_KEY) ?? null;
  }
  if (!storage) {
    // Nowhere to keep it: the address keeps it, so a reload still works.
    return token;
  }
  storage.setItem(STORAGE_KEY, token);
  const url = new URL(location.href);
  url.hash = '';
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search);
  return token;
}

export function webSocketUrl(location: Pick<Location, 'protocol' | 'host'>, token: string | null): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${scheme}://${location.host}/ws${query}`;
}
