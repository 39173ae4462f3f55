import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DaemonStatus } from '../../shared/model.js';
import { isDaemonRunning } from '../../electron/core/lifecycle/daemonProcess.js';
import { readDaemonPidFile } from '../../electron/core/lifecycle/DaemonPidFile.js';
import { pidFilePath, socketPath } from '../../electron/core/platform/paths.js';
import { inspectProcess } from '../../electron/core/process/processState.js';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { cliDriver } from '../helpers/cliDriver.js';
import { readyDaemon } from '../helpers/readyDaemon.js';
import { cliPath, type CliResult } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitUntil } from '../helpers/waitFor.js';

/**
 * One daemon per profile, however many start it and however the last one ended: many starters at once and one
 * after another, a second `daemon run` beside a live daemon, a connection flood, a start right after a SIGKILL (which
 * adopts the dead daemon's Chrome), and a daemon left a zombie by a parent that never reaps it. Real processes (the compiled CLI), a real Chromium and the
 * real upstream; what runs is read from /proc, so this file is Linux-only.
 */

const linux = process.platform === 'linux';

/** The processes of this TABMUX_HOME whose command line satisfies `matches`, zombies left out. */
function processesOf(home: string, matches: (args: string[]) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) {
      continue;
    }
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (matches(args) && (env.includes(`TABMUX_HOME=${home}`) || args.some((arg) => arg.includes(home))) && isProcessAlive(pid)) {
        pids.push(pid);
      }
    } catch {
      // Gone while being read.
    }
  }
  return pids.sort((a, b) => a - b);
}

/** Daemon processes (`tabmux daemon run`) of this TABMUX_HOME. */
function daemonPids(home: string): number[] {
  return processesOf(home, (args) => args.some((arg, i) => arg === 'daemon' && args[i + 1] === 'run'));
}

/** Chrome browser processes (not their helpers) on this TABMUX_HOME's default profile. */
function chromePids(home: string): number[] {
  const userDataDir = `--user-data-dir=${join(home, 'data', 'profiles', 'default', 'chrome')}`;
  return processesOf(home, (args) => args.includes(userDataDir) && !args.some((arg) => arg.startsWith('--type=')));
}

function expectOk(run: CliResult, what: string): void {
  expect(run.code, `${what} exited ${String(run.code)}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Ends whatever still runs on this TABMUX_HOME, and waits until it is gone, so its folder can be removed. */
async function killAll(home: string): Promise<void> {
  for (const pid of [...daemonPids(home), ...chromePids(home)]) {
    process.kill(pid, 'SIGKILL');
  }
  await waitUntil(() => daemonPids(home).length === 0 && chromePids(home).length === 0, 'every process of the test home to exit');
}

/** Opens connections to a socket until the kernel answers EAGAIN (its backlog is full), or `max` are open. */
async function fillBacklog(path: string, max: number): Promise<{ sockets: Socket[]; busy: boolean }> {
  const sockets: Socket[] = [];
  while (sockets.length < max) {
    const batch = await Promise.all(
      Array.from({ length: 64 }, () => new Promise<Socket | 'busy' | 'failed'>((resolve) => {
        const socket = createConnection({ path });
        socket.once('connect', () => resolve(socket));
        socket.once('error', (error) => {
          socket.destroy();
          resolve('code' in error && error.code === 'EAGAIN' ? 'busy' : 'failed');
        });
      })),
    );
    for (const result of batch) {
      if (typeof result !== 'string') {
        result.on('error', () => undefined);
        sockets.push(result);
      }
    }
    if (batch.includes('busy')) {
      return { sockets, busy: true };
    }
  }
  return { sockets, busy: false };
}

describe.runIf(linux)('one daemon per profile', () => {
  const { home, paths, cleanup } = makeTestHome();
  const { tabmux, json } = cliDriver(home);
  /** A daemon this file stopped with SIGSTOP, continued again whatever happens. */
  let frozen: number | undefined;

  afterAll(async () => {
    if (frozen !== undefined) {
      process.kill(frozen, 'SIGCONT');
    }
    await tabmux(['daemon', 'stop']);
    await killAll(home);
    cleanup();
  });

  /** The running daemon's status; `daemon start` is a no-op when one runs. Each test asks, so none depends on another. */
  const running = (): Promise<DaemonStatus> => json<DaemonStatus>(['daemon', 'start']);

  it('serves every one of many simultaneous starters with one daemon and one Chrome', async () => {
    const starts = Array.from({ length: 4 }, () => tabmux(['daemon', 'start', '--json']));
    const calls = Array.from({ length: 4 }, () => tabmux(['mcp', 'call', '--new-session', 'list_pages']));
    const startRuns = await Promise.all(starts);
    const callRuns = await Promise.all(calls);
    startRuns.forEach((run) => expectOk(run, 'daemon start'));
    callRuns.forEach((run) => expectOk(run, 'mcp call --new-session'));
    const reported = startRuns.map((run) => JSON.parse(run.stdout) as DaemonStatus & { started: boolean });
    const status = await json<DaemonStatus>(['daemon', 'status']);
    expect(new Set(reported.map((report) => report.pid))).toEqual(new Set([status.pid]));
    // At most the starter whose daemon won says it started one; an `mcp call` may have been that starter.
    expect(reported.filter((report) => report.started).length).toBeLessThanOrEqual(1);
    // Daemons that lost the race waited for the winner, then exited.
    await waitUntil(() => daemonPids(home).length === 1, 'the daemons that lost the race to exit');
    expect(daemonPids(home)).toEqual([status.pid]);
    expect(chromePids(home)).toEqual([status.chrome.pid]);
    expect((await readDaemonPidFile(pidFilePath(paths, 'default')))?.pid).toBe(status.pid);
  });

  it('lets a second daemon run beside a live one leave it serving', async () => {
    const status = await running();
    const second = await tabmux(['daemon', 'run']);
    expectOk(second, 'a second daemon run');
    expect(second.stderr).toMatch(/already running \(pid \d+\)/);
    expect(second.stderr).toMatch(/leaves it serving/);
    const after = await json<DaemonStatus>(['daemon', 'status']);
    expect(after).toMatchObject({ pid: status.pid, state: 'ready', chrome: { pid: status.chrome.pid } });
    expect((await readDaemonPidFile(pidFilePath(paths, 'default')))?.pid).toBe(status.pid);
    expectOk(await tabmux(['mcp', 'call', '--new-session', 'list_pages']), 'mcp call after the second daemon run');
    expect(daemonPids(home)).toEqual([status.pid]);
  });

  it('serves a new client through a connection flood instead of calling the daemon stopped', async () => {
    const status = await running();
    // Stopped, the daemon accepts nothing, so the flood fills its backlog for certain, and connects get EAGAIN.
    process.kill(status.pid, 'SIGSTOP');
    frozen = status.pid;
    const flood = await fillBacklog(socketPath(paths, 'default'), 5_000);
    let call: Promise<CliResult>;
    let runs: Promise<unknown>;
    try {
      expect(flood.busy).toBe(true);
      call = tabmux(['mcp', 'call', '--new-session', 'list_pages']);
      // Kept as a value, so a failure is asserted below rather than left unhandled.
      runs = isDaemonRunning(paths, 'default').catch((error: unknown) => error);
      // Long enough for the new client to meet the full backlog (and, were EAGAIN taken for "not running", to give
      // up or start a second daemon) before the daemon accepts again.
      await sleep(3_000);
    } finally {
      process.kill(status.pid, 'SIGCONT');
      frozen = undefined;
    }
    expectOk(await call, 'mcp call during the flood');
    expect(await runs).toBe(true);
    for (const socket of flood.sockets) {
      socket.destroy();
    }
    expect((await json<DaemonStatus>(['daemon', 'status'])).pid).toBe(status.pid);
    expect(daemonPids(home)).toEqual([status.pid]);
  });

  it('starts again at once after the daemon is killed with SIGKILL, and adopts the old Chrome', async () => {
    const status = await running();
    process.kill(status.pid, 'SIGKILL');
    const again = await tabmux(['daemon', 'start', '--json']);
    expectOk(again, 'daemon start after SIGKILL');
    const fresh = JSON.parse(again.stdout) as DaemonStatus & { started: boolean };
    expect(fresh.started).toBe(true);
    expect(fresh.pid).not.toBe(status.pid);
    expect(fresh.chrome.pid).toBe(status.chrome.pid);
    expect(chromePids(home)).toEqual([fresh.chrome.pid]);
    expect(daemonPids(home)).toEqual([fresh.pid]);
  });

  it('serves starters that come one after another while the daemon starts', async () => {
    expectOk(await tabmux(['daemon', 'stop']), 'daemon stop');
    // runCli never rejects, so the runs can wait here while the next one starts.
    const firstStart = tabmux(['daemon', 'start', '--json']);
    await sleep(1_000);
    const laterCall = tabmux(['mcp', 'call', '--new-session', 'list_pages']);
    await sleep(1_000);
    const lastStart = tabmux(['daemon', 'start', '--json']);
    const [first, call, last] = await Promise.all([firstStart, laterCall, lastStart]);
    expectOk(first, 'the first daemon start');
    expectOk(call, 'mcp call started a second later');
    expectOk(last, 'daemon start two seconds later');
    const pid = (JSON.parse(first.stdout) as DaemonStatus).pid;
    expect((JSON.parse(last.stdout) as DaemonStatus).pid).toBe(pid);
    await waitUntil(() => daemonPids(home).length === 1, 'the daemons that lost the race to exit');
    expect(daemonPids(home)).toEqual([pid]);
    expect(chromePids(home)).toHaveLength(1);
  });
  it('removes only its own socket and pid file when it stops', async () => {
    const status = await running();
    const socket = socketPath(paths, 'default');
    const pidFile = pidFilePath(paths, 'default');
    // Another listener's socket and another claim take the daemon's paths, as another daemon's would.
    renameSync(socket, join(home, 'run', 'moved-aside.sock'));
    const other = createServer((connection) => connection.end());
    await new Promise<void>((resolve) => other.listen(socket, resolve));
    const otherClaim = JSON.stringify({ pid: process.pid, identity: inspectProcess(process.pid).identity, nonce: '0123456789abcdef' });
    writeFileSync(pidFile, otherClaim);
    try {
      process.kill(status.pid, 'SIGTERM');
      await waitUntil(() => !isProcessAlive(status.pid), 'the daemon to stop');
      expect(lstatSync(socket).isSocket()).toBe(true);
      await new Promise<void>((resolve, reject) => createConnection({ path: socket }).once('connect', resolve).once('error', reject));
      expect(readFileSync(pidFile, 'utf8')).toBe(otherClaim);
    } finally {
      await new Promise((resolve) => other.close(resolve));
      rmSync(pidFile, { force: true });
    }
  });
});

describe.runIf(linux)('a daemon whose parent never reaps it', () => {
  const { home, paths, env, cleanup } = makeTestHome();
  const { tabmux } = cliDriver(home);
  let parent: ChildProcess | undefined;

  afterAll(async () => {
    await tabmux(['daemon', 'stop']);
    parent?.kill('SIGKILL');
    await killAll(home);
    cleanup();
  });

  it('is not taken for a live daemon once killed: its watchdog stops its Chrome and a new start succeeds', async () => {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TABMUX_')));
    // The shell puts the daemon in the background and becomes `sleep`, which never waits for its children.
    parent = spawn('/bin/sh', ['-c', `"$0" "$1" daemon run >>"$2" 2>&1 & echo $!; exec sleep 600`, process.execPath, cliPath(), join(home, 'daemon-run.log')], {
      // No grace period: this is about the watchdog seeing through a zombie, not about a successor adopting Chrome.
      env: { ...inherited, ...env, TABMUX_HEADLESS: '1', TABMUX_ORPHAN_GRACE_MS: '0' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const stdout = parent.stdout;
    if (stdout === null) {
      throw new Error('no stdout from the parent');
    }
    const daemonPid = await new Promise<number>((resolve) => stdout.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString('utf8'), 10))));
    const client = await readyDaemon(paths);
    const before = await client.call('tabmux/status');
    client.close();
    expect(before.pid).toBe(daemonPid);
    const chromePid = before.chrome.pid;
    expect(chromePid).not.toBeNull();

    process.kill(daemonPid, 'SIGKILL');
    await waitUntil(() => inspectProcess(daemonPid).state === 'zombie', 'the killed daemon to become a zombie');
    // kill(pid, 0) still succeeds for it; the watchdog must see through that.
    expect(() => process.kill(daemonPid, 0)).not.toThrow();
    await waitUntil(() => chromePid === null || !isProcessAlive(chromePid), "the zombie daemon's watchdog to stop its Chrome");

    const again = await tabmux(['daemon', 'start', '--json']);
    expectOk(again, 'daemon start beside the zombie');
    const fresh = JSON.parse(again.stdout) as DaemonStatus & { started: boolean };
    expect(fresh).toMatchObject({ started: true, state: 'ready' });
    expect(fresh.pid).not.toBe(daemonPid);
    // Nothing reaped the old daemon; the new one started anyway.
    expect(inspectProcess(daemonPid).state).toBe('zombie');
    expect(chromePids(home)).toEqual([fresh.chrome.pid]);
    expectOk(await tabmux(['mcp', 'call', '--new-session', 'list_pages']), 'mcp call on the new daemon');
  });
});
