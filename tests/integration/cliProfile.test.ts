import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileDataDir, resolvePaths, socketPath } from '../../electron/core/platform/paths.js';
import { cliDriver } from '../helpers/cliDriver.js';
import { killChromeGroup } from '../helpers/killedChrome.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitUntil as until } from '../helpers/waitFor.js';

/**
 * `tabmux profile` and the profile errors of `tabmux daemon start`, driven through the compiled bin (run
 * `npm run build` first) with a fresh TABMUX_HOME. The default profile's daemon runs for the whole file, so removal
 * of a running profile and the running/stopped listing can be checked.
 */

const { home, cleanup } = makeTestHome();
const { tabmux, ok, json } = cliDriver(home);

beforeAll(async () => {
  await ok(['daemon', 'start']);
});

afterAll(async () => {
  for (const profile of ['default', 'kept', 'locked', 'nochrome']) {
    await tabmux(['daemon', 'stop', '--profile', profile]);
  }
  cleanup();
});

describe('tabmux profile', () => {
  it('adds, lists and removes profiles', async () => {
    expect(await ok(['profile', 'add', 'work', '--headless'])).toBe('added profile work\n');
    const listed = await json<{ name: string; running: boolean; config: { headless?: boolean } }[]>(['profile', 'list']);
    expect(listed.find((row) => row.name === 'default')).toMatchObject({ running: true });
    expect(listed.find((row) => row.name === 'work')).toMatchObject({ running: false, config: { headless: true } });
    expect(await ok(['profile', 'list'])).toMatch(/^default\trunning\n(.*\n)*work\tstopped$/m);

    const twice = await tabmux(['profile', 'add', 'work']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/already exists/);

    expect(await ok(['profile', 'add', 'windows', '--isolation', 'window'])).toBe('added profile windows\n');
    const windows = (await json<{ name: string; config: { isolation?: string } }[]>(['profile', 'list'])).find((row) => row.name === 'windows');
    expect(windows?.config.isolation).toBe('window');
    const unknown = await tabmux(['profile', 'add', 'other', '--isolation', 'tabs']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--isolation must be tab/);
    await ok(['profile', 'remove', 'windows']);

    expect(await ok(['profile', 'remove', 'work'])).toBe('removed profile work\n');
    expect((await json<{ name: string }[]>(['profile', 'list'])).map((row) => row.name)).not.toContain('work');
    const gone = await tabmux(['profile', 'remove', 'work']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no profile named "work"/);
  });

  it('refuses to remove a profile whose daemon runs, and explains that the default profile stays', async () => {
    const run = await tabmux(['profile', 'remove', 'default', '--delete-data']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/running; stop it first/);
    expect(existsSync(join(home, 'data', 'profiles', 'default', 'chrome'))).toBe(true);
    const always = await tabmux(['profile', 'remove', 'default']);
    expect(always.code).toBe(2);
    expect(always.stderr).toMatch(/the default profile always exists, so it cannot be removed; tabmux profile remove default --delete-data deletes its data/);
  });

  it("keeps a removed profile's data unless told to delete it, and deletes only that profile's folder", async () => {
    const paths = resolvePaths({ TABMUX_HOME: home });
    await ok(['profile', 'add', 'kept', '--headless']);
    await ok(['daemon', 'start', '--profile', 'kept']);
    await ok(['mcp', 'call', '--new-session', '--profile', 'kept', 'list_pages']);
    await ok(['daemon', 'stop', '--profile', 'kept']);
    const dataDir = profileDataDir(paths, 'kept');
    expect(existsSync(join(dataDir, 'chrome'))).toBe(true);

    const kept = await ok(['profile', 'remove', 'kept']);
    expect(kept).toBe(`removed profile kept; its data (its Chrome's logins, downloads, activity log) stays in ${dataDir}: tabmux profile add kept takes it up again, --delete-data deletes it\n`);
    expect(existsSync(join(dataDir, 'chrome'))).toBe(true);

    await ok(['profile', 'add', 'kept']);
    const deleted = await json<{ removed: string; dataDir: string | null; dataDeleted: boolean }>(['profile', 'remove', 'kept', '--delete-data']);
    expect(deleted).toEqual({ removed: 'kept', dataDir, dataDeleted: true });
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(join(home, 'data', 'profiles', 'default', 'chrome'))).toBe(true);
    const gone = await tabmux(['profile', 'remove', 'kept', '--delete-data']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no profile named "kept"/);
  });

  it('removes a profile only when its socket says no daemon is there, and reports anything unclear', async () => {
    expect(await ok(['profile', 'add', 'held'])).toBe('added profile held\n');
    // Something listens on the profile's socket but hangs up at once: a daemon may be there, so removal must not guess.
    const listener = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(socketPath(resolvePaths({ TABMUX_HOME: home }), 'held'), resolve));
    try {
      const run = await tabmux(['profile', 'remove', 'held']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/cannot tell whether the daemon for profile held is running .*tabmux daemon status --profile held/);
      expect((await json<{ name: string }[]>(['profile', 'list'])).map((row) => row.name)).toContain('held');
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
    expect(await ok(['profile', 'remove', 'held'])).toBe('removed profile held\n');
  });

  it('rejects a bad profile name with a clear error and touches nothing', async () => {
    for (const args of [['session', 'list', '--profile', '../x'], ['daemon', 'start', '--profile', '../x'], ['profile', 'add', '../x'], ['profile', 'add', 'Upper']]) {
      const run = await tabmux(args);
      expect(run.code, args.join(' ')).not.toBe(0);
      expect(run.stderr, args.join(' ')).toMatch(/invalid profile name/);
      expect(run.stdout).toBe('');
    }
    const asJson = await tabmux(['daemon', 'status', '--profile', '../x', '--json']);
    expect(asJson.code).not.toBe(0);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ error: { code: 'invalid_profile' } });
    expect(existsSync(join(home, 'data', 'profiles', '..', 'x'))).toBe(false);
    expect(existsSync(join(home, 'data', 'x'))).toBe(false);
  });

  it('explains a missing Chrome and names TABMUX_CHROME and --chrome', async () => {
    await ok(['profile', 'add', 'nochrome']);
    const run = await tabmux(['daemon', 'start', '--profile', 'nochrome'], { TABMUX_CHROME: '/nonexistent' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Chrome not found at \/nonexistent/);
    expect(run.stderr).toMatch(/TABMUX_CHROME/);
    expect(run.stderr).toMatch(/--chrome/);
    expect((await tabmux(['daemon', 'status', '--profile', 'nochrome'])).code).toBe(3);
    expect(existsSync(join(home, 'run', 'nochrome.sock'))).toBe(false);

    const asJson = await tabmux(['daemon', 'start', '--profile', 'nochrome', '--json'], { TABMUX_CHROME: '/nonexistent' });
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ error: { code: 'chrome_not_found' } });
  });

  describe('a user-data-dir already held by another Chrome', () => {
    let other: ChildProcess | undefined;
    const userDataDir = join(home, 'data', 'profiles', 'locked', 'chrome');

    afterAll(async () => {
      if (other?.pid !== undefined && other.exitCode === null) {
        const exited = new Promise((resolve) => other?.once('exit', resolve));
        killChromeGroup(other.pid, userDataDir);
        await exited;
      }
    });

    it('is refused with profile_locked and an "already in use" explanation', async () => {
      await ok(['profile', 'add', 'locked']);
      // A group of its own, so that it is killed with its helpers.
      other = spawn('/usr/bin/chromium', ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', `--user-data-dir=${userDataDir}`, 'about:blank'], {
        stdio: 'ignore',
        detached: true,
      });
      const lock = join(userDataDir, 'SingletonLock');
      await until(() => {
        try {
          return readlinkSync(lock).endsWith(`-${String(other?.pid)}`);
        } catch {
          return false;
        }
      }, 'the other Chrome to lock its user-data-dir');

      const run = await tabmux(['daemon', 'start', '--profile', 'locked']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/already in use by another Chrome \(pid \d+\)/);
      expect(run.stderr).toMatch(/quit that Chrome or use another tabmux profile/);
      expect((await tabmux(['daemon', 'status', '--profile', 'locked'])).code).toBe(3);
      expect(other.exitCode).toBeNull();

      const asJson = await tabmux(['daemon', 'start', '--profile', 'locked', '--json']);
      expect(asJson.code).toBe(1);
      expect(JSON.parse(asJson.stdout)).toMatchObject({ error: { code: 'profile_locked', message: expect.stringMatching(/already in use/) as unknown } });
    });

    it('keeps the profile and its data when asked to delete them under that Chrome', async () => {
      const run = await tabmux(['profile', 'remove', 'locked', '--delete-data']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`a Chrome \\(pid ${String(other?.pid)}\\) still runs on ${userDataDir}; quit it, then remove the profile again`));
      expect(readlinkSync(join(userDataDir, 'SingletonLock'))).toMatch(new RegExp(`-${String(other?.pid)}$`));
      expect((await json<{ name: string }[]>(['profile', 'list'])).map((row) => row.name)).toContain('locked');
    });
  });
});
