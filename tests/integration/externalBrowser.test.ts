import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { socketPath } from '../../electron/core/platform/paths.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import type { DaemonStatus, ExternalBrowserInfo } from '../../shared/model.js';
import { textOf } from '../../shared/toolResult.js';
import { alive, cliDriver } from '../helpers/cliDriver.js';
import { startUserChromium, type UserChromium } from '../helpers/userChromium.js';
import { bindSession, html, type BoundSession } from '../helpers/daemonFixture.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitUntil } from '../helpers/waitFor.js';

/**
 * A profile on the user's own browser (`--browser-url`): a Chromium this test starts itself, as a user would, with a
 * tab of the user's own. Through the compiled CLI (run `npm run build` first) and the daemon's socket it checks that
 * agents work there without seeing or touching the user's tab, that the browser going away and coming back is
 * followed without restarting tabmux, and that stopping tabmux leaves the browser running.
 */

interface JsonTab {
  id: string;
  url: string;
  title: string;
  type: string;
}

const { home, paths, cleanup } = makeTestHome();
const { tabmux, ok, json } = cliDriver(home);
const chromiums: UserChromium[] = [];
const clients: DaemonClient[] = [];
const USER_TAB = 'data:text/html,<title>mine</title><p>my own tab</p>';

/** Starts Chromium the way a user does for `--browser-url` (on `port` to bring it back where it was). */
async function startChromium(port?: number): Promise<UserChromium> {
  const chromium = await startUserChromium(port);
  chromiums.push(chromium);
  return chromium;
}

async function jsonList(chromium: UserChromium): Promise<JsonTab[]> {
  const tabs = (await (await fetch(`${chromium.url}/json/list`)).json()) as JsonTab[];
  return tabs.filter((tab) => tab.type === 'page');
}

async function openUserTab(chromium: UserChromium): Promise<JsonTab> {
  return (await (await fetch(`${chromium.url}/json/new?${USER_TAB}`, { method: 'PUT' })).json()) as JsonTab;
}

async function status(): Promise<DaemonStatus> {
  return json<DaemonStatus>(['daemon', 'status', '--profile', 'mine']);
}

async function externalInfo(): Promise<ExternalBrowserInfo> {
  const { browser } = await status();
  if (browser.kind !== 'external') {
    throw new Error(`expected an external browser, got ${browser.kind}`);
  }
  return browser;
}

async function session(label: string): Promise<BoundSession> {
  const client = await DaemonClient.connect(socketPath(paths, 'mine'), 'test');
  clients.push(client);
  const info = await client.call('tabmux/session.create', { label });
  await client.call('tabmux/session.bind', { session: info.id });
  return bindSession(client, info.id);
}

let first: UserChromium;
let userTab: JsonTab;
/** A tab of the user's on a page agents may not reach: it is theirs, so tabmux must leave it there. */
let settingsTab: JsonTab;

beforeAll(async () => {
  first = await startChromium();
  userTab = await openUserTab(first);
  settingsTab = (await (await fetch(`${first.url}/json/new?chrome://version/`, { method: 'PUT' })).json()) as JsonTab;
});

afterAll(async () => {
  for (const client of clients) {
    client.close();
  }
  await tabmux(['daemon', 'stop', '--profile', 'mine']);
  for (const chromium of chromiums) {
    chromium.stop();
  }
  cleanup();
});

describe('a profile on the user\'s own browser (--browser-url)', () => {
  it('is added with a validated http(s) URL', async () => {
    const refused = await tabmux(['profile', 'add', 'bad', '--browser-url', '127.0.0.1:9222']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--browser-url must be an http\(s\) URL/);
    const mixed = await tabmux(['profile', 'add', 'bad', '--browser-url', first.url, '--chrome', '/usr/bin/chromium']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/only apply to a Chrome that tabmux launches/);

    expect(await ok(['profile', 'add', 'mine', '--browser-url', first.url])).toBe('added profile mine\n');
    const listed = await json<{ name: string; config: { browserUrl?: string } }[]>(['profile', 'list']);
    expect(listed.find((row) => row.name === 'mine')?.config.browserUrl).toBe(first.url);
    expect(listed.map((row) => row.name)).not.toContain('bad');
  });

  it('connects when the first call needs the browser, serves sessions there, and status says it is external', async () => {
    const before = (await jsonList(first)).map((tab) => tab.id).sort();
    await ok(['daemon', 'start', '--profile', 'mine']);
    const idle = await status();
    expect(idle.browser).toEqual({ kind: 'external', state: 'pending', endpoint: first.url, lastError: null, attempts: 0, nextRetryAt: null });
    expect(idle.state).toBe('ready');
    // Nothing of tabmux's is in the browser yet: not even its guard's connection.
    expect((await jsonList(first)).map((tab) => tab.id).sort()).toEqual(before);

    const opener = await session('opener');
    expect(await opener.text('list_pages')).toContain('## Pages');
    const running = await status();
    expect(running.browser).toEqual({ kind: 'external', state: 'connected', endpoint: first.url, lastError: null, attempts: 0, nextRetryAt: null });
    expect(running.chrome).toEqual({ pid: null, port: null, browserUrl: null, userDataDir: null, headless: null, executable: null });
    expect(await ok(['daemon', 'status', '--profile', 'mine'])).toContain(`external browser ${first.url}: connected`);

    const agent = await session('agent');
    await agent.text('new_page', { url: html('<p>agent work</p>', 'Agent page') });
    expect(await agent.text('evaluate_script', { function: '() => document.body.innerText' })).toContain('agent work');
    expect((await jsonList(first)).map((tab) => tab.title)).toContain('Agent page');
  });

  it("neither shows nor touches the user's own tab, and session close leaves it open", async () => {
    const agent = await session('looker');
    await agent.text('new_page', { url: html('<p>looking</p>', 'Looker page') });
    const listed = await agent.text('list_pages');
    expect(listed).toContain('Looker page');
    expect(listed).not.toContain('mine');
    expect(listed).not.toContain(userTab.url);

    // The guard keeps agents off this browser's own DevTools endpoint, which would list the user's tab.
    const probe = await agent.call('navigate_page', { url: `${first.url}/json/list` });
    const seen = await agent.call('evaluate_script', { function: '() => document.body?.innerText ?? ""' });
    expect(`${textOf(probe)}\n${textOf(seen)}`).not.toContain(userTab.id);

    const closed = await agent.client.call('tabmux/session.close', { session: agent.id });
    expect(closed.closedPages).toHaveLength(1);
    // Chrome takes the closed tab off /json/list a moment after Target.closeTarget answers.
    await waitUntil(async () => !(await jsonList(first)).some((tab) => tab.title === 'Looker page'), "the session's tab to close");
    const after = await jsonList(first);
    expect(after.find((tab) => tab.id === userTab.id)).toMatchObject({ url: userTab.url, title: 'mine' });
    expect(after.find((tab) => tab.id === settingsTab.id)?.url).toBe('chrome://version/');
  });

  it('leaves a browser page the user opens while tabmux is connected where it is', async () => {
    const later = (await (await fetch(`${first.url}/json/new?chrome://version/`, { method: 'PUT' })).json()) as JsonTab;
    // An agent's tab opened and closed after it: closing goes through the daemon's own connection and waits for the
    // browser's event, so by then the daemon has had the user's tab reported (events come in order).
    const agent = await session('later');
    await agent.text('new_page', { url: html('<p>later</p>', 'Later page') });
    await agent.client.call('tabmux/session.close', { session: agent.id });
    // The guard answers a tab's event in milliseconds; give a reset that should not happen time to show.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await jsonList(first)).find((tab) => tab.id === later.id)?.url).toBe('chrome://version/');
  });

  it('fails calls with a clear error while the browser is gone, and works again once it is back', async () => {
    const agent = await session('survivor');
    await agent.text('new_page', { url: html('<p>before</p>', 'Before loss') });
    first.stop();
    await waitUntil(async () => (await externalInfo()).state === 'disconnected', 'the daemon to notice the browser is gone');
    const lost = await externalInfo();
    expect(lost.lastError).toMatch(/went away|not reachable/);

    const failed = await agent.call('list_pages');
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/the browser at http:\/\/127\.0\.0\.1:\d+ is not reachable/);
    expect((await status()).state).toBe('degraded');

    const second = await startChromium(first.port);
    expect(second.port).toBe(first.port);
    const listed = await agent.text('list_pages');
    expect(listed).toMatch(/were lost/);
    await agent.text('new_page', { url: html('<p>after</p>', 'After return') });
    expect(await agent.text('evaluate_script', { function: '() => document.body.innerText' })).toContain('after');
    expect(await externalInfo()).toMatchObject({ state: 'connected', lastError: null, attempts: 0 });
    expect((await status()).state).toBe('ready');
  });

  it('daemon stop disconnects and leaves the browser and its tabs running', async () => {
    const second = chromiums[1];
    if (!second?.child.pid) {
      throw new Error('the restarted Chromium is missing');
    }
    const usersAgain = await openUserTab(second);
    expect(await ok(['daemon', 'stop', '--profile', 'mine'])).toBe('stopped profile mine\n');
    expect(alive(second.child.pid)).toBe(true);
    const version = (await (await fetch(`${second.url}/json/version`)).json()) as { Browser?: string };
    expect(version.Browser).toMatch(/Chrome/);
    expect((await jsonList(second)).find((tab) => tab.id === usersAgain.id)).toMatchObject({ url: usersAgain.url });
  });
});
