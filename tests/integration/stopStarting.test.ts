import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findChrome } from '../../electron/core/browser/findChrome.js';
import { pidFilePath, profileLogFile, socketPath } from '../../electron/core/platform/paths.js';
import { runningHolder } from '../../electron/core/process/ClaimFile.js';
import { inspectProcess } from '../../electron/core/process/processState.js';
import { alive, cliDriver } from '../helpers/cliDriver.js';
import { cliPath } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';

/**
 * A daemon holds its profile from the start, but opens its socket only once its Chrome runs: `daemon stop` in
 * between finds no socket to ask it by. It must still stop that daemon (and the Chrome it goes on to launch), not say
 * none was running and leave it to come up. A real `daemon start`, a real Chromium started late by a wrapper.
 */

const { home, paths, cleanup } = makeTestHome();
const { tabmux } = cliDriver(home);
/**
 * Chromium, started a few seconds late, so the daemon is caught holding its profile with no socket yet. Each launch
 * adds its pid (the same once it execs Chromium) to `launches`.
 */
const slowChrome = join(home, 'slow-chromium.sh');
const launches = join(home, 'launches');
writeFileSync(slowChrome, `#!/bin/sh\necho $$ >> '${launches}'\nsleep 3\nexec '${findChrome(undefined)}' "$@"\n`);
chmodSync(slowChrome, 0o755);

/** The pids of the Chromes slowChrome launched so far. */
function launched(): number[] {
  return existsSync(launches) ? readFileSync(launches, 'utf8').split('\n').filter(Boolean).map((line) => Number.parseInt(line, 10)) : [];
}

/** A process that holds the profile's pid file and never opens its socket, running this script; returned once it ran it. */
async function holdProfile(script: string): Promise<ChildProcess> {
  const holder = spawn(process.execPath, ['-e', `${script}; process.stdout.write('ready\\n')`], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => holder.stdout?.once('data', resolve));
  const pid = holder.pid ?? 0;
  mkdirSync(dirname(pidFilePath(paths, 'default')), { recursive: true });
  writeFileSync(pidFilePath(paths, 'default'), JSON.stringify({ pid, identity: inspectProcess(pid).identity, nonce: 'aaaaaaaaaaaaaaaa' }));
  return holder;
}

/** Chrome processes run on a user-data-dir under this test's home. */
function chromesOfHome(): number[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(`--user-data-dir=${home}`)).map((line) => Number.parseInt(line.trim(), 10));
}

afterAll(async () => {
  await tabmux(['daemon', 'stop']);
  cleanup();
});

describe('daemon stop and restart while the daemon starts', () => {
  it('stops it, and the Chrome it launches, though it has no socket yet', async () => {
    const starting = tabmux(['daemon', 'start'], { TABMUX_CHROME: slowChrome }, 60_000);
    const holder = await waitFor(() => runningHolder(pidFilePath(paths, 'default')), 'the starting daemon to hold its profile');
    expect(existsSync(socketPath(paths, 'default'))).toBe(false);

    const stop = await tabmux(['daemon', 'stop']);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain('stopped profile default');
    // Returned once the daemon is gone: it finished starting, then stopped as asked, closing its Chrome.
    expect(alive(holder.pid)).toBe(false);
    await waitUntil(() => chromesOfHome().length === 0, () => `no Chrome left on the profile (still: ${chromesOfHome().join(', ')})`);
    expect(await runningHolder(pidFilePath(paths, 'default'))).toBeUndefined();

    // Whoever was starting it is not left waiting, nor does it start the daemon again: it saw the daemon ready just
    // before it stopped, or is told it was stopped. The profile is free.
    const started = await starting;
    if (started.code !== 0) {
      expect(started).toMatchObject({ code: 1, stderr: 'tabmux: the daemon for profile default was stopped while it started (tabmux daemon stop, or Stop in the tray); start it again if that was not meant\n' });
    }
    expect((await tabmux(['daemon', 'status'])).code).toBe(3);
  }, 90_000);

  it('daemon restart waits for it, then hands its Chrome to the new daemon instead of closing it', async () => {
    const before = launched().length;
    const starting = tabmux(['daemon', 'start'], { TABMUX_CHROME: slowChrome }, 60_000);
    const holder = await waitFor(() => runningHolder(pidFilePath(paths, 'default')), 'the starting daemon to hold its profile');
    expect(existsSync(socketPath(paths, 'default'))).toBe(false);

    try {
      const restart = await tabmux(['daemon', 'restart', '--json'], { TABMUX_CHROME: slowChrome }, 90_000);
      expect(restart.code, restart.stderr).toBe(0);
      // The start saw the first daemon ready, or the new one: either way a daemon runs, as it was asked.
      const started = await starting;
      expect(started.code, started.stderr).toBe(0);
      const status = JSON.parse(restart.stdout) as { pid: number; chrome: { pid: number | null } };
      // A new daemon, on the Chrome the first one launched: one launch, not a second after the first was closed.
      expect(status.pid).not.toBe(holder.pid);
      expect(alive(holder.pid)).toBe(false);
      expect(launched().slice(before)).toEqual([status.chrome.pid]);
    } finally {
      await starting;
      expect((await tabmux(['daemon', 'stop'])).code).toBe(0);
    }
  }, 120_000);

  it('a daemon stuck in its start, deaf to SIGTERM, is killed at the deadline, and the stop says so', async () => {
    const holder = await holdProfile("process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)");
    const exited = new Promise<NodeJS.Signals | null>((resolve) => holder.once('exit', (_code, signal) => resolve(signal)));
    try {
      const stop = await tabmux(['daemon', 'stop'], {}, 60_000);
      expect(stop.code, stop.stderr).toBe(0);
      expect(stop.stdout).toBe(`stopped profile default (killed: it did not stop in time; its log: ${profileLogFile(paths, 'default')})\n`);
      expect(await exited).toBe('SIGKILL');
    } finally {
      holder.kill('SIGKILL');
    }
  }, 60_000);

  it('a daemon run waiting for the daemon that holds the profile leaves at once when signalled', async () => {
    // A process holding the profile's pid file that never opens a socket, as a daemon stuck in its start would.
    const holder = await holdProfile('setInterval(() => {}, 1000)');
    const holderPid = holder.pid ?? 0;
    try {
      const waiting = spawn(process.execPath, [cliPath(), 'daemon', 'run', '--headless'], { env: { ...process.env, TABMUX_HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] });
      let said = '';
      waiting.stderr.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => waiting.once('exit', (code, signal) => resolve({ code, signal })));
      await waitUntil(() => said.includes('waiting for it to answer'), () => `the daemon run to wait for the holder (it said: ${said})`);
      waiting.kill('SIGTERM');
      // Within its join wait (a minute), it would otherwise go on waiting for a daemon it was asked not to wait for.
      const exit = await Promise.race([exited, new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 10_000))]);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(said).toContain('asked to stop while waiting for the other daemon to answer');
      expect(alive(holderPid)).toBe(true);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 60_000);
});
