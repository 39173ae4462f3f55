import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectProcess, procStartTime } from '../process/processState.js';
import { describeSingletonFolderRemoval } from '../process/testing/singletonFolderCases.js';
import { WATCHDOG_DAEMON_RUNS, WATCHDOG_TIDY } from './ChromeWatchdog.js';

/** Runs the watchdog's check on a pid (and a recorded start time) the way the watchdog's shell does. */
function daemonRuns(pid: number, startTime: string): boolean {
  return spawnSync('/bin/sh', ['-c', `${WATCHDOG_DAEMON_RUNS}\ndaemon_runs "$1" "$2"`, 'test', String(pid), startTime]).status === 0;
}

const parents: ChildProcess[] = [];

afterEach(() => {
  for (const parent of parents.splice(0)) {
    parent.kill('SIGKILL');
  }
});

describe.skipIf(process.platform === 'win32')("the Chrome watchdog's check on its daemon", () => {
  it('holds while the daemon runs, with or without a start time to compare', () => {
    expect(daemonRuns(process.pid, procStartTime(process.pid) ?? '')).toBe(true);
    expect(daemonRuns(process.pid, '')).toBe(true);
  });

  it('fails for a pid that names nothing', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(daemonRuns(Number.parseInt(gone.stdout, 10), '')).toBe(false);
  });

  it.skipIf(process.platform !== 'linux')('fails for a pid now used by a process that started at another time', () => {
    expect(daemonRuns(process.pid, `${procStartTime(process.pid) ?? ''}1`)).toBe(false);
  });

  it.skipIf(process.platform !== 'linux')('fails for a daemon left a zombie by a parent that never reaps it', async () => {
    // `sleep` in the background of a shell that becomes another `sleep`, which never waits for its children.
    const parent = spawn('/bin/sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    parents.push(parent);
    const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString('utf8'), 10))));
    const startTime = procStartTime(pid) ?? '';
    expect(daemonRuns(pid, startTime)).toBe(true);
    process.kill(pid, 'SIGKILL');
    while (inspectProcess(pid).state !== 'zombie') {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(daemonRuns(pid, startTime)).toBe(false);
  });
});

describe.skipIf(process.platform === 'win32')("the Chrome watchdog's removal of the temp folder Chrome leaves", () => {
  describeSingletonFolderRemoval('its tidy step', async (userDataDir, pid) => {
    await new Promise<void>((resolve) => {
      spawn('/bin/sh', ['-c', `${WATCHDOG_DAEMON_RUNS}\n${WATCHDOG_TIDY}\ntidy "$1" "$2" "$3"`, 'test', String(pid), userDataDir, hostname()], { stdio: 'ignore' }).once('exit', () => resolve());
    });
  });
});
