import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Supervisor } from '../../electron/core/supervisor/Supervisor.js';
import { SupervisorService } from '../../electron/core/supervisor/SupervisorService.js';
import { ProfileStore } from '../../electron/core/profile/ProfileStore.js';
import { TabmuxError } from '../../shared/errors.js';
import type { ExternalBrowserInfo } from '../../shared/model.js';
import { supervisorResultSchema, type ProfileView, type SupervisorEvent } from '../../shared/supervisor.js';
import { makeTestHome } from '../helpers/testHome.js';
import { startUserChromium, type UserChromium } from '../helpers/userChromium.js';
import { waitFor } from '../helpers/waitFor.js';

/**
 * External profiles through the supervisor API, as the dashboard and the tray use it: adding one by URL with the
 * checks `profile add --browser-url` makes, connecting to a Chromium this test starts itself, following the browser
 * as it goes away and comes back, and disconnecting without touching it. Daemons run from `dist` (`npm run build`).
 */

const { paths, env, cleanup } = makeTestHome();
const savedHome = process.env['TABMUX_HOME'];
const events: SupervisorEvent[] = [];
const browsers: UserChromium[] = [];
let supervisor: Supervisor;
let service: SupervisorService;
let chromium: UserChromium;

beforeAll(async () => {
  // The supervisor spawns daemons with this process's environment.
  process.env['TABMUX_HOME'] = env['TABMUX_HOME'];
  chromium = await startUserChromium();
  browsers.push(chromium);
  supervisor = new Supervisor({ paths, pollIntervalMs: 300 });
  supervisor.onEvent((event) => events.push(event));
  service = new SupervisorService(supervisor);
  await supervisor.start();
});

afterAll(async () => {
  await supervisor.dispose({ stopDaemons: true });
  for (const browser of browsers) {
    browser.stop();
  }
  cleanup();
  if (savedHome === undefined) {
    Reflect.deleteProperty(process.env, 'TABMUX_HOME');
  } else {
    process.env['TABMUX_HOME'] = savedHome;
  }
});

async function add(params: unknown): Promise<ProfileView> {
  const result = supervisorResultSchema('supervisor/profile.addExternal').parse(await service.dispatch('supervisor/profile.addExternal', params));
  return result;
}

async function refusal(params: unknown): Promise<TabmuxError> {
  const error: unknown = await service.dispatch('supervisor/profile.addExternal', params).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TabmuxError);
  return TabmuxError.from(error);
}

/** The latest pushed view of `mine` that passes `check`, as a UI folding every event would have it. */
function pushed(check: (view: ProfileView) => boolean, what: string): Promise<ProfileView> {
  return waitFor(() => {
    const views = events.flatMap((event) => (event.type === 'profile' && event.profile.name === 'mine' ? [event.profile] : []));
    const latest = views.at(-1);
    return latest && check(latest) ? latest : undefined;
  }, what, 30_000);
}

function browserOf(view: ProfileView): ExternalBrowserInfo | undefined {
  const browser = view.status?.browser;
  return browser?.kind === 'external' ? browser : undefined;
}

describe('external profiles through the supervisor API', () => {
  it('adds a profile by URL, stores it as profile add does, and pushes it to every UI', async () => {
    const view = await add({ name: 'mine', browserUrl: chromium.url, isolation: 'window' });
    expect(view).toMatchObject({ name: 'mine', kind: 'external', endpoint: chromium.url, state: 'stopped', status: null });
    expect((await new ProfileStore(paths).get('mine')).config).toMatchObject({ browserUrl: chromium.url, isolation: 'window' });
    await pushed((pushedView) => pushedView.kind === 'external', 'the new profile pushed');
    const snapshot = await supervisor.snapshot();
    expect(snapshot.profiles.find((profile) => profile.name === 'mine')?.kind).toBe('external');
    expect(snapshot.profiles.find((profile) => profile.name === 'default')).toMatchObject({ kind: 'launched', endpoint: null });
  });

  it('refuses a bad URL, a taken name and a bad name with what to do, and stores nothing', async () => {
    const badUrl = await refusal({ name: 'other', browserUrl: 'localhost:9222' });
    expect(badUrl.code).toBe('invalid_params');
    expect(badUrl.message).toContain('http(s) URL');
    const taken = await refusal({ name: 'mine', browserUrl: 'http://127.0.0.1:9333' });
    expect(taken.code).toBe('profile_exists');
    expect(taken.message).toContain('pick another name');
    const badName = await refusal({ name: 'a/b', browserUrl: chromium.url });
    expect(badName.code).toBe('invalid_profile');
    const missing = await refusal({ name: 'other' });
    expect(missing.code).toBe('invalid_params');
    expect((await new ProfileStore(paths).list()).map((entry) => entry.name)).toEqual(['default', 'mine']);
  });

  it('never shows the credentials in a URL', async () => {
    const view = await add({ name: 'creds', browserUrl: 'http://agent:s3cret@127.0.0.1:9/' });
    expect(view.endpoint).not.toContain('s3cret');
    expect(JSON.stringify(await supervisor.snapshot())).not.toContain('s3cret');
  });

  it('connects when started, and shows the connection', async () => {
    await service.dispatch('supervisor/profile.start', { profile: 'mine' });
    const ready = await pushed((view) => view.state === 'ready' && browserOf(view)?.state === 'connected', 'mine connected');
    expect(browserOf(ready)).toMatchObject({ endpoint: chromium.url, lastError: null, attempts: 0 });
  });

  it('shows the browser going away with the error and the next retry, then coming back', async () => {
    const port = chromium.port;
    chromium.stop();
    const lost = await pushed((view) => browserOf(view)?.state === 'disconnected', 'mine to lose its browser');
    expect(lost.state).toBe('restarting');
    expect(browserOf(lost)?.lastError).toBeTruthy();
    const retrying = await pushed((view) => (browserOf(view)?.attempts ?? 0) > 0, 'a failed retry to be shown');
    expect(browserOf(retrying)?.nextRetryAt).toEqual(expect.any(Number));

    chromium = await startUserChromium(port);
    browsers.push(chromium);
    const back = await pushed((view) => view.state === 'ready' && browserOf(view)?.state === 'connected', 'mine to reconnect');
    expect(browserOf(back)?.lastError).toBeNull();
  });

  it('disconnects when stopped and leaves the browser running', async () => {
    await service.dispatch('supervisor/profile.stop', { profile: 'mine' });
    await pushed((view) => view.state === 'stopped', 'mine stopped');
    expect(await chromium.answers()).toBe(true);
  });
});
