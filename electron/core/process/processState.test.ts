import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectProcess, isRunningCheap, isSameProcessRunning, ownIdentity, parseProcStat, parsePs } from './processState.js';

const linux = process.platform === 'linux';

/** Processes a test started, ended after it. */
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    child.kill('SIGKILL');
  }
});

/**
 * A zombie: `sleep` in the background of a shell that then becomes another `sleep` (exec), which never waits for
 * children. Killing the background one leaves it exited and unreaped for as long as that parent lives.
 */
async function makeZombie(): Promise<number> {
  const parent = spawn('/bin/sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(parent);
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString('utf8'), 10)));
    parent.once('error', reject);
  });
  process.kill(pid, 'SIGKILL');
  for (;;) {
    if (inspectProcess(pid).state === 'zombie') {
      return pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('parseProcStat', () => {
  it('reads the state and the start time after the last parenthesis, whatever the name holds', () => {
    const fields = ['S', '1', ...Array.from({ length: 17 }, (_, i) => String(i)), '987654', '0', '0'];
    expect(parseProcStat(`42 (we) (ird) ${fields.join(' ')}\n`, 'boot')).toEqual({ state: 'running', identity: 'boot:987654' });
    expect(parseProcStat(`42 (x) Z ${fields.slice(1).join(' ')}`, undefined)).toEqual({ state: 'zombie', identity: 'start:987654' });
    expect(parseProcStat(`42 (x) X ${fields.slice(1).join(' ')}`, 'boot')?.state).toBe('gone');
    expect(parseProcStat('42 (x) S 1 2', 'boot')).toBeUndefined();
    expect(parseProcStat('garbage', 'boot')).toBeUndefined();
  });
});

describe('parsePs', () => {
  it('reads the state letters and the start time, and an empty answer as no process', () => {
    expect(parsePs('Ss   Mon Jan  1 00:00:00 2024\n')).toEqual({ state: 'running', identity: 'lstart:Mon Jan 1 00:00:00 2024' });
    expect(parsePs('Z+   Mon Jan  1 00:00:00 2024\n').state).toBe('zombie');
    expect(parsePs('\n')).toEqual({ state: 'gone', identity: undefined });
  });
});

describe('inspectProcess', () => {
  it('sees this process running, with an identity that stays the same', () => {
    const self = inspectProcess(process.pid);
    expect(self.state).toBe('running');
    expect(isSameProcessRunning(process.pid, ownIdentity())).toBe(true);
    if (linux) {
      expect(self.identity).toBe(ownIdentity());
    }
  });

  it('treats pids that name nothing as gone', () => {
    for (const pid of [0, -1, 1.5, 2 ** 22 + 12345]) {
      expect(inspectProcess(pid).state).toBe('gone');
      expect(isRunningCheap(pid)).toBe(false);
    }
  });

  it.skipIf(!linux)('tells a zombie from a running process, where kill(pid, 0) cannot', async () => {
    const zombie = await makeZombie();
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(inspectProcess(zombie).state).toBe('zombie');
    expect(isRunningCheap(zombie)).toBe(false);
    expect(isSameProcessRunning(zombie, undefined)).toBe(false);
  });

  it.skipIf(!linux)('tells a reused pid from the process that recorded it', () => {
    const self = inspectProcess(process.pid);
    expect(isSameProcessRunning(process.pid, self.identity)).toBe(true);
    expect(isSameProcessRunning(process.pid, `${self.identity ?? ''}0`)).toBe(false);
  });

  it.skipIf(process.platform === 'win32')('asks ps where there is no /proc, and sees zombies there too', async () => {
    const self = inspectProcess(process.pid, 'darwin');
    expect(self.state).toBe('running');
    expect(self.identity).toMatch(/^lstart:/);
    expect(inspectProcess(2 ** 22 + 12345, 'darwin').state).toBe('gone');
    if (linux) {
      expect(inspectProcess(await makeZombie(), 'darwin').state).toBe('zombie');
    }
  });
});
