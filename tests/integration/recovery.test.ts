import { execFile } from 'node:child_process';
import { existsSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { html, pagesOf, startTestDaemon, uidOf, untilCall, type TestDaemon } from '../helpers/daemonFixture.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitUntil } from '../helpers/waitFor.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'electron', 'bin', 'tabmux.js');


/** Far longer than a crash takes to be told, so a call that waited for its own end instead is plain to see. */
const SLOW_MS = 30_000;
const slow = { function: `async () => { await new Promise((r) => setTimeout(r, ${SLOW_MS})); return "done"; }`, waitForStableDom: false };

describe('crash recovery', () => {
  let t: TestDaemon;

  beforeAll(async () => {
    t = await startTestDaemon();
  });

  afterAll(async () => {
    await t.stop();
  });

  it('restarts a killed upstream child, fails the call in flight and keeps the session on its tab', async () => {
    const s = await t.session('survivor');
    const page = pagesOf(await s.text('new_page', { url: html('<button>Keep</button>', 'Kept page') })).selected!;
    const before = await s.client.call('tabmux/status');
    const upstreamPid = before.upstream.pid!;
    const inFlight = s.call('evaluate_script', slow);
    // Killed once the call runs: a crash before it started would test something else.
    await untilCall(s.client, s.id, 'running');
    const killedAt = Date.now();
    process.kill(upstreamPid, 'SIGKILL');
    const failed = await inFlight;
    // Told when the worker died, not when the call would have ended.
    expect(Date.now() - killedAt).toBeLessThan(SLOW_MS / 2);
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toContain('exited while the call ran');

    // The next call restarts the worker; the session still owns its tab (found again by Chrome tab id).
    const listed = await s.text('list_pages');
    expect(listed).toContain('pages were kept');
    expect(listed).toContain('Kept page');
    const after = await s.client.call('tabmux/status');
    expect(after.upstream.pid).not.toBe(upstreamPid);
    expect(after.sessions.find((x) => x.id === s.id)?.pages.map((p) => p.title)).toEqual(['Kept page']);
    const snapshot = await s.text('take_snapshot');
    expect((await s.call('click', { uid: uidOf(snapshot, 'button', 'Keep') })).isError).toBeUndefined();
    expect(typeof page).toBe('number');
  });

  it('relaunches a killed Chrome, fails the call in flight fast, and gives sessions a fresh tab', async () => {
    const a = await t.session('crash-a');
    const b = await t.session('crash-b');
    await a.text('new_page', { url: html('<p>a</p>', 'A before crash') });
    await b.text('new_page', { url: html('<p>b</p>', 'B before crash') });
    const control = await t.connect();
    const before = await control.call('tabmux/status');
    const chromePid = before.chrome.pid!;
    const inFlight = a.call('evaluate_script', slow);
    await untilCall(control, a.id, 'running');
    const killedAt = Date.now();
    process.kill(-chromePid, 'SIGKILL');
    const failed = await inFlight;
    // Told when Chrome died, not when the call would have ended.
    expect(Date.now() - killedAt).toBeLessThan(SLOW_MS / 2);
    expect(failed.isError).toBe(true);
    // Whichever notices first words it: upstream ("Target closed") or tabmux ("Chrome exited ...").
    expect(JSON.stringify(failed.content)).toMatch(/Chrome exited|Target closed|Connection closed/);

    await waitUntil(async () => {
      const status = await control.call('tabmux/status');
      return status.state === 'ready' && status.chrome.pid !== chromePid && status.chrome.pid !== null;
    }, 'Chrome to be relaunched', 20_000);
    const after = await control.call('tabmux/status');
    expect(after.chrome.pid).not.toBe(chromePid);
    expect(after.sessions.map((s) => s.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    // Only workers that serve someone wait to restart; the rest of the pool is stopped, as before the crash.
    const spare = after.workers.filter((worker) => worker.index !== 0 && worker.sessions === 0);
    expect(spare.length).toBeGreaterThan(0);
    expect(spare.map((worker) => worker.state)).toEqual(spare.map(() => 'stopped'));

    const snapshot = await b.text('take_snapshot');
    expect(snapshot).toContain('were lost');
    expect(snapshot).toContain('about:blank');
    expect((await a.text('evaluate_script', { function: '() => 40 + 2' }))).toContain('42');
  });
});

describe('no orphans', () => {
  it('a daemon killed with SIGKILL leaves nothing running forever; the next start cleans up', async () => {
    const { env, home, cleanup } = makeTestHome();
    // A short grace period: Chrome outlives the daemon only that long when no successor adopts it.
    const cliEnv = { ...process.env, ...env, TABMUX_HEADLESS: '1', TABMUX_ORPHAN_GRACE_MS: '1000' };
    try {
      await run(process.execPath, [CLI, 'daemon', 'start'], { env: cliEnv });
      const status = JSON.parse((await run(process.execPath, [CLI, 'daemon', 'status', '--json'], { env: cliEnv })).stdout) as {
        pid: number;
        chrome: { pid: number };
        upstream: { pid: number };
      };
      process.kill(status.pid, 'SIGKILL');
      // Upstream exits on its own when its stdin (the dead daemon) closes; Chrome's watchdog closes Chrome after the grace period.
      await waitUntil(() => !isProcessAlive(status.upstream.pid), 'upstream to exit');
      await waitUntil(() => !isProcessAlive(status.chrome.pid), 'the watchdog to stop Chrome');
      expect(existsSync(join(home, 'run', 'default.sock'))).toBe(true);

      // The next start clears the stale socket and pid file.
      await run(process.execPath, [CLI, 'daemon', 'start'], { env: cliEnv });
      const fresh = JSON.parse((await run(process.execPath, [CLI, 'daemon', 'status', '--json'], { env: cliEnv })).stdout) as { pid: number; chrome: { pid: number } };
      expect(fresh.pid).not.toBe(status.pid);
      expect(fresh.chrome.pid).not.toBe(status.chrome.pid);
      await run(process.execPath, [CLI, 'daemon', 'stop'], { env: cliEnv });
      expect(isProcessAlive(fresh.chrome.pid)).toBe(false);
    } finally {
      await run(process.execPath, [CLI, 'daemon', 'stop'], { env: cliEnv }).catch(() => undefined);
      cleanup();
    }
  });
});

describe('the temp folder a Chrome closed by its watchdog leaves', () => {
  it('is removed by the watchdog once that Chrome is gone', async () => {
    const { env, cleanup } = makeTestHome();
    const cliEnv = { ...process.env, ...env, TABMUX_HEADLESS: '1', TABMUX_ORPHAN_GRACE_MS: '1000' };
    try {
      await run(process.execPath, [CLI, 'daemon', 'start'], { env: cliEnv });
      const status = JSON.parse((await run(process.execPath, [CLI, 'daemon', 'status', '--json'], { env: cliEnv })).stdout) as { pid: number; chrome: { pid: number; userDataDir: string } };
      const folder = dirname(readlinkSync(join(status.chrome.userDataDir, 'SingletonSocket')));
      expect(existsSync(folder)).toBe(true);
      // Without its port file the watchdog cannot ask Chrome to quit, and sends SIGTERM, on which Chrome exits without
      // removing that folder (as a kill or a crash would leave it).
      rmSync(join(status.chrome.userDataDir, 'DevToolsActivePort'));
      process.kill(status.pid, 'SIGKILL');
      await waitUntil(() => !isProcessAlive(status.chrome.pid), 'the watchdog to stop Chrome');
      await waitUntil(() => !existsSync(folder), `the watchdog to remove Chrome's temp folder ${folder}`, 15_000);
    } finally {
      await run(process.execPath, [CLI, 'daemon', 'stop'], { env: cliEnv }).catch(() => undefined);
      cleanup();
    }
  });
});

describe('a Chrome that keeps failing', () => {
  it('backs off and shows as crashed with the last error instead of looping', async () => {
    const { home, cleanup } = makeTestHome();
    // Launches Chromium the first time only; every relaunch fails, like a profile that crashes Chrome at start.
    const wrapper = join(home, 'flaky-chrome.sh');
    writeFileSync(wrapper, `#!/bin/sh\nif [ -e "${home}/launched" ]; then echo "simulated start failure" >&2; exit 1; fi\ntouch "${home}/launched"\nexec /usr/bin/chromium "$@"\n`, { mode: 0o755 });
    const flaky = await startTestDaemon({ chrome: wrapper, workers: 1 });
    try {
      const s = await flaky.session();
      await s.text('take_snapshot');
      const control = await flaky.connect();
      const chromePid = (await control.call('tabmux/status')).chrome.pid!;
      process.kill(-chromePid, 'SIGKILL');
      await waitUntil(async () => (await control.call('tabmux/status')).state === 'crashed', 'the crashed state', 20_000);
      const status = await control.call('tabmux/status');
      expect(status.lastError).toMatch(/Chrome/);
      expect(status.lastError).toMatch(/retrying every \d+ s/);
      const startedAt = Date.now();
      const refused = await s.call('take_snapshot');
      // Refused at once, not held until a Chrome that never comes back (or the call's limit): a wide bound, for a
      // loaded machine.
      expect(Date.now() - startedAt).toBeLessThan(15_000);
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('Chrome is not running');
    } finally {
      await flaky.stop();
      cleanup();
    }
  });
});
