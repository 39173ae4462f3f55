import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { addExternalProfile } from './addExternalProfile.js';
import { resolvePaths } from '../platform/paths.js';
import { ProfileStore } from './ProfileStore.js';

let home: string;
let store: ProfileStore;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tmx-add-'));
  store = new ProfileStore(resolvePaths({ TABMUX_HOME: home }));
});

afterEach(() => rmSync(home, { recursive: true, force: true }));

async function refusal(work: Promise<unknown>): Promise<TabmuxError> {
  const error: unknown = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TabmuxError);
  return TabmuxError.from(error);
}

describe('addExternalProfile', () => {
  it('stores the browser URL and the isolation', async () => {
    await addExternalProfile(store, { name: 'mine', browserUrl: 'http://127.0.0.1:9222', isolation: 'window' });
    const entry = await store.get('mine');
    expect(entry.config.browserUrl).toBe('http://127.0.0.1:9222');
    expect(entry.config.isolation).toBe('window');
    expect(entry.config.chrome).toBeUndefined();
  });

  it('refuses a URL that is not http(s), and says what it wants', async () => {
    const error = await refusal(addExternalProfile(store, { name: 'mine', browserUrl: 'ws://127.0.0.1:9222' }));
    expect(error.code).toBe('invalid_params');
    expect(error.message).toMatch(/http\(s\) URL .* such as http:\/\/127\.0\.0\.1:9222/);
    expect((await store.list()).map((entry) => entry.name)).toEqual(['default']);
  });

  it('refuses a bad name before looking at the URL', async () => {
    const error = await refusal(addExternalProfile(store, { name: '../x', browserUrl: 'nope' }));
    expect(error.code).toBe('invalid_profile');
  });

  it('refuses a name that is taken', async () => {
    await addExternalProfile(store, { name: 'mine', browserUrl: 'http://127.0.0.1:9222' });
    const error = await refusal(addExternalProfile(store, { name: 'mine', browserUrl: 'http://127.0.0.1:9333' }));
    expect(error.code).toBe('profile_exists');
    expect((await store.get('mine')).config.browserUrl).toBe('http://127.0.0.1:9222');
  });

  it('refuses an unknown isolation', async () => {
    const error = await refusal(addExternalProfile(store, { name: 'mine', browserUrl: 'http://127.0.0.1:9222', isolation: 'tabs' }));
    expect(error.message).toMatch(/--isolation must be tab/);
  });
});
