import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearStopRequest, noteStopRequested } from '../lifecycle/stopRequest.js';
import { pidFilePath, resolvePaths, type TabmuxPaths } from '../platform/paths.js';
import { classifyDaemonExit } from './daemonExit.js';

const homes: string[] = [];

afterEach(() => {
  for (const home of homes.splice(0)) {
    rmSync(home, { recursive: true, force: true });
  }
});

function home(): TabmuxPaths {
  const dir = mkdtempSync(join(tmpdir(), 'tmx-exit-'));
  homes.push(dir);
  const paths = resolvePaths({ TABMUX_HOME: dir });
  mkdirSync(paths.runtimeDir, { recursive: true, mode: 0o700 });
  return paths;
}

/** The pid of a process that has exited (and been reaped): a daemon that is gone. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '0']);
  return pid;
}

const cleanups: (() => void)[] = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) {
    cleanup();
  }
});

/**
 * A process that runs `ms` milliseconds longer, then removes `pidFile` (if given) and exits: a daemon still stopping.
 * Killed at the test's end if it is still there.
 */
function stillStopping(ms: number, pidFile?: string): number {
  const script = `setTimeout(() => { ${pidFile === undefined ? '' : `require('node:fs').rmSync(${JSON.stringify(pidFile)}, { force: true });`} process.exit(0); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  if (child.pid === undefined) {
    throw new Error('could not start a process');
  }
  return child.pid;
}

/** A pid file as the daemon with this pid left it behind: a daemon killed before it could remove its file. */
function leftPidFile(paths: TabmuxPaths, pid: number): void {
  writeFileSync(pidFilePath(paths, 'default'), JSON.stringify({ pid, chromePid: null, userDataDir: '/x', startedAt: 1 }));
}

describe('how a watched daemon ended', () => {
  it('a daemon that removed its pid file stopped', async () => {
    expect(await classifyDaemonExit(home(), 'default', deadPid())).toBe('stopped');
  });

  it('a daemon that left its pid file behind crashed, unless a stop was asked of it', async () => {
    const paths = home();
    const pid = deadPid();
    leftPidFile(paths, pid);
    expect(await classifyDaemonExit(paths, 'default', pid)).toBe('crashed');
    await noteStopRequested(paths, 'default', pid);
    expect(await classifyDaemonExit(paths, 'default', pid)).toBe('stopped');
  });

  it("a stop asked of another daemon, or one its profile's next daemon cleared, does not count", async () => {
    const paths = home();
    const pid = deadPid();
    leftPidFile(paths, pid);
    await noteStopRequested(paths, 'default', pid + 1);
    expect(await classifyDaemonExit(paths, 'default', pid)).toBe('crashed');
    await noteStopRequested(paths, 'default', pid);
    await clearStopRequest(paths, 'default');
    expect(await classifyDaemonExit(paths, 'default', pid)).toBe('crashed');
  });

  it('a daemon that still runs after its connections closed is not taken for crashed: it is told slow, then stopped once it removed its pid file', async () => {
    const paths = home();
    const pid = stillStopping(1500, pidFilePath(paths, 'default'));
    leftPidFile(paths, pid);
    const slow: number[] = [];
    expect(await classifyDaemonExit(paths, 'default', pid, { slowAfterMs: 200, onSlow: (waitedMs) => slow.push(waitedMs) })).toBe('stopped');
    expect(slow).toHaveLength(1);
    expect(slow[0]).toBeGreaterThan(200);
  });

  it('one that still runs long after is stuck, and so is one whose watcher goes away', async () => {
    const paths = home();
    const pid = stillStopping(60_000);
    leftPidFile(paths, pid);
    expect(await classifyDaemonExit(paths, 'default', pid, { slowAfterMs: 100, stuckAfterMs: 400 })).toBe('stuck');
    expect(await classifyDaemonExit(paths, 'default', pid, { abandoned: () => true })).toBe('stuck');
  });
});
