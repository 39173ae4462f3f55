import { describe, expect, it } from 'vitest';
import { readToken, takeAccessToken, webSocketUrl } from './accessToken.js';

function memoryStorage(): { getItem(key: string): string | null; setItem(key: string, value: string): void } {
  const items = new Map<string, string>();
  return { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) };
}

describe('readToken', () => {
  it('prefers the hash, falls back to the query', () => {
    expect(readToken('#token=h1', '?token=q1')).toBe('h1');
    expect(readToken('', '?token=q1')).toBe('q1');
    expect(readToken('#other=1', '')).toBeNull();
    expect(readToken('', '?token=')).toBeNull();
  });
});

describe('takeAccessToken', () => {
  it('stores the token and clears it from the address bar', () => {
    const replaced: string[] = [];
    const history = { state: null, replaceState: (_state: unknown, _unused: string, url?: string | URL | null) => void replaced.push(String(url)) };
    const storage = memoryStorage();
    const location = { hash: '#token=abc', search: '?view=1&token=old', href: 'http://127.0.0.1:7000/dash/?view=1&token=old#token=abc' };
    expect(takeAccessToken(location, history, storage)).toBe('abc');
    expect(replaced).toEqual(['/dash/?view=1']);
    expect(storage.getItem('tabmux.token')).toBe('abc');
  });

  it('uses the stored token after a reload', () => {
    const storage = memoryStorage();
    storage.setItem('tabmux.token', 'kept');
    const history = { state: null, replaceState: () => undefined };
    expect(takeAccessToken({ hash: '', search: '', href: 'http://127.0.0.1:7000/' }, history, storage)).toBe('kept');
    expect(takeAccessToken({ hash: '', search: '', href: 'http://127.0.0.1:7000/' }, history, null)).toBeNull();
  });

  it('leaves the token in the address when the tab has no storage, so a reload still works', () => {
    const replaced: string[] = [];
    const history = { state: null, replaceState: (_state: unknown, _unused: string, url?: string | URL | null) => void replaced.push(String(url)) };
    expect(takeAccessToken({ hash: '#token=abc', search: '', href: 'http://127.0.0.1:7000/#token=abc' }, history, null)).toBe('abc');
    expect(replaced).toEqual([]);
  });
});

describe('webSocketUrl', () => {
  it('follows the page scheme and host', () => {
    expect(webSocketUrl({ protocol: 'http:', host: '127.0.0.1:7000' }, 'a b')).toBe('ws://127.0.0.1:7000/ws?token=a%20b');
    expect(webSocketUrl({ protocol: 'https:', host: 'box:443' }, null)).toBe('wss://box:443/ws');
  });
});
