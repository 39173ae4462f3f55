import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileFilesDir } from '../../electron/core/platform/paths.js';
import { html, startTestDaemon, type TestDaemon } from '../helpers/daemonFixture.js';
import { makeTestHome } from '../helpers/testHome.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'electron', 'bin', 'tabmux.js');

/** Local addresses of every listening TCP socket owned by the given processes (from /proc). */
function listeningAddresses(pids: readonly number[]): string[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match?.[1]) {
          inodes.add(match[1]);
        }
      } catch {
        // The fd closed meanwhile.
      }
    }
  }
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // st 0A = LISTEN; field 9 is the inode.
      if (fields[3] === '0A' && fields[9] && inodes.has(fields[9])) {
        addresses.push(fields[1] ?? '');
      }
    }
  }
  return addresses;
}

function isLoopback(hexAddress: string): boolean {
  const [ip] = hexAddress.split(':');
  if (!ip) {
    return false;
  }
  if (ip.length === 8) {
    // IPv4, little-endian: 0100007F = 127.0.0.1; the first octet is the last byte.
    return ip.slice(6, 8) === '7F';
  }
  return ip === '00000000000000000000000001000000' || ip.endsWith('0000FFFF0100007F');
}

function processGroup(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid;
      } catch {
        return false;
      }
    });
}

describe('security', () => {
  let t: TestDaemon;

  beforeAll(async () => {
    t = await startTestDaemon({ workers: 1 });
  });

  afterAll(async () => {
    await t.stop();
  });

  it('listens on nothing but loopback (Chrome, upstream, daemon)', async () => {
    const s = await t.session();
    await s.text('take_snapshot');
    const status = await s.client.call('tabmux/status');
    const pids = [status.pid, ...processGroup(status.chrome.pid!), ...status.workers.map((w) => w.pid ?? -1)];
    const addresses = listeningAddresses(pids);
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((address) => !isLoopback(address))).toEqual([]);
    expect(status.chrome.browserUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("confines file tools to the session's own folder in the profile", async () => {
    const s = await t.session();
    await s.text('new_page', { url: html('<h1>shot</h1>') });
    const outside = await s.call('take_screenshot', { filePath: '/etc/tabmux-should-not-exist.png' });
    expect(outside.isError).toBe(true);
    expect(existsSync('/etc/tabmux-should-not-exist.png')).toBe(false);
    const filesDir = profileFilesDir({ configDir: '', dataDir: join(t.home, 'data'), runtimeDir: '' }, 'default');
    const profileLevel = await s.call('take_screenshot', { filePath: join(filesDir, 'shot.png') });
    expect(profileLevel.isError).toBe(true);
    const saved = await s.call('take_screenshot', { filePath: 'shot.png' });
    expect(saved.isError).toBeUndefined();
    expect(existsSync(join(filesDir, s.id, 'shot.png'))).toBe(true);
  });

  it("gives each upstream worker its own temp folder inside the profile, so file tools' temp root is not the system's", async () => {
    const s = await t.session();
    await s.text('take_snapshot');
    const worker = (await s.client.call('tabmux/status')).workers[0];
    const environ = readFileSync(`/proc/${String(worker?.pid)}/environ`, 'utf8').split('\0');
    const tempDir = join(t.home, 'data', 'profiles', 'default', 'tmp', 'worker-0');
    expect(environ).toEqual(expect.arrayContaining([`TMPDIR=${tempDir}`, `TMP=${tempDir}`, `TEMP=${tempDir}`]));
    expect(statSync(tempDir).mode & 0o777).toBe(0o700);
  });
});

describe('an insecure runtime dir', () => {
  it('is refused before anything starts', async () => {
    const { home, env, cleanup } = makeTestHome();
    try {
      const elsewhere = join(home, 'elsewhere');
      mkdirSync(elsewhere, { mode: 0o700 });
      rmSync(join(home, 'run'), { recursive: true, force: true });
      symlinkSync(elsewhere, join(home, 'run'));
      const failed = await run(process.execPath, [CLI, 'daemon', 'start', '--json'], { env: { ...process.env, ...env, TABMUX_HEADLESS: '1' } }).then(
        () => undefined,
        (error: unknown) => error as { code: number; stdout: string },
      );
      // With --json the error is the command's output: one JSON object on stdout.
      expect(failed?.code).toBe(1);
      const { error } = JSON.parse(failed?.stdout ?? '{}') as { error?: { code: string; message: string } };
      expect(error?.code).toBe('insecure_runtime_dir');
      expect(error?.message).toContain('symlink');
    } finally {
      cleanup();
    }
  });
});
