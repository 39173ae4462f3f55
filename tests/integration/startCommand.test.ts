import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { profileLogFile } from '../../electron/core/platform/paths.js';
import type { DaemonStatus } from '../../shared/model.js';
import { killChromeGroup } from '../helpers/killedChrome.js';
import { freePort } from '../helpers/userChromium.js';
import { alive, cliDriver } from '../helpers/cliDriver.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';

/**
 * `--start-command`: the user's browser is not running, and tabmux brings it up with the user's own command when
 * something needs it; it never stops it.
 */

const { home, paths, cleanup } = makeTestHome();
const { tabmux, ok, json } = cliDriver(home);
const userDataDir = mkdtempSync(join(tmpdir(), 'tmx-started-'));
const pidFile = join(userDataDir, 'browser.pid');
let port: number;

function browserPid(): number {
  return Number(readFileSync(pidFile, 'utf8').trim());
}

async function answers(): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/json/version`).then((response) => response.ok, () => false);
}

afterAll(async () => {
  await tabmux(['daemon', 'stop', '--profile', 'own']);
  try {
    killChromeGroup(browserPid(), userDataDir);
  } catch {
    // Not started: no pid file.
  }
  rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  cleanup();
});

describe('a profile with --start-command', () => {
  it('runs the command when the browser is not there, serves calls, and leaves the browser running on stop', async () => {
    port = await freePort();
    const sandbox = process.getuid?.() === 0 ? ' --no-sandbox' : '';
    const command = `echo $$ > '${pidFile}'; exec /usr/bin/chromium --headless=new --remote-debugging-port=${port} --user-data-dir='${userDataDir}' --no-first-run --disable-gpu${sandbox} about:blank`;
    const refused = await tabmux(['profile', 'add', 'bad', '--start-command', 'true']);
    expect(refused.stderr).toMatch(/--start-command goes with --browser-url or --ws-endpoint/);
    await ok(['profile', 'add', 'own', '--browser-url', `http://127.0.0.1:${port}`, '--start-command', command]);
    expect(await answers()).toBe(false);

    // Starting the daemon needs no browser yet: the first call does.
    await ok(['daemon', 'start', '--profile', 'own']);
    expect(await answers()).toBe(false);
    expect((await json<DaemonStatus>(['daemon', 'status', '--profile', 'own'])).browser).toMatchObject({ kind: 'external', state: 'pending' });

    const id = (await ok(['session', 'create', '--profile', 'own'])).trim();
    expect(await ok(['mcp', 'call', '--profile', 'own', '--session', id, 'new_page', JSON.stringify({ url: 'data:text/html,<title>started</title>' })])).toContain('started');
    expect(await answers()).toBe(true);
    const status = await json<DaemonStatus>(['daemon', 'status', '--profile', 'own']);
    expect(status.browser).toMatchObject({ kind: 'external', state: 'connected' });
    expect(readFileSync(profileLogFile(paths, 'own'), 'utf8')).toContain("ran the profile's start command");

    await ok(['daemon', 'stop', '--profile', 'own']);
    expect(alive(browserPid())).toBe(true);
    expect(await answers()).toBe(true);
  });

  it('runs it again when the browser went away and a call needs it', async () => {
    await ok(['daemon', 'start', '--profile', 'own']);
    const before = (await ok(['session', 'create', '--profile', 'own'])).trim();
    await ok(['mcp', 'call', '--profile', 'own', '--session', before, 'list_pages']);
    const first = browserPid();
    // The whole process group, as a crash of the browser takes its helpers along.
    killChromeGroup(first, userDataDir);
    await waitUntil(async () => (await json<DaemonStatus>(['daemon', 'status', '--profile', 'own'])).browser.kind === 'external' && !(await answers()), 'the browser to be gone');
    await waitUntil(
      async () => {
        const { browser } = await json<DaemonStatus>(['daemon', 'status', '--profile', 'own']);
        return browser.kind === 'external' && browser.state === 'disconnected';
      },
      'the daemon to notice',
    );
    const id = (await ok(['session', 'create', '--profile', 'own'])).trim();
    const result = await waitFor(async () => {
      const run = await tabmux(['mcp', 'call', '--profile', 'own', '--session', id, 'list_pages']);
      return run.code === 0 ? run.stdout : undefined;
    }, 'a call to work again', 45_000);
    expect(result).toContain('## Pages');
    expect(browserPid()).not.toBe(first);
  });
});
