import { spawnSync } from 'node:child_process';
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
});
