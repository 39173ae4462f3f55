import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeSingletonFolder } from './chromeHolding.js';

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A user-data-dir as a Chrome with this pid leaves it when killed: its lock, and its socket in a temp folder. */
function leftBehind(pid: number, lockPid = pid): { userDataDir: string; folder: string } {
  const userDataDir = mkdtempSync(join(tmpdir(), 'tmx-udd-'));
  const folder = mkdtempSync(join(tmpdir(), 'org.chromium.Chromium.'));
  made.push(userDataDir, folder);
  writeFileSync(join(folder, 'SingletonSocket'), '');
  symlinkSync('1234567890', join(folder, 'SingletonCookie'));
  symlinkSync(`${hostname()}-${lockPid}`, join(userDataDir, 'SingletonLock'));
  symlinkSync(join(folder, 'SingletonSocket'), join(userDataDir, 'SingletonSocket'));
  symlinkSync(join(folder, 'SingletonCookie'), join(userDataDir, 'SingletonCookie'));
  return { userDataDir, folder };
}

/** A pid that no process has any more. */
async function goneChildPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 0;
}

describe('removeSingletonFolder', () => {
  it('removes the temp folder a Chrome that exited without cleaning up kept its socket in', async () => {
    const pid = await goneChildPid();
    const { userDataDir, folder } = leftBehind(pid);
    expect(await removeSingletonFolder(userDataDir, pid)).toBe(true);
    expect(existsSync(folder)).toBe(false);
  });

  it('leaves it when the lock names another Chrome (one started there since), or a Chrome still running', async () => {
    const pid = await goneChildPid();
    const other = leftBehind(pid, pid + 1);
    expect(await removeSingletonFolder(other.userDataDir, pid)).toBe(false);
    expect(existsSync(other.folder)).toBe(true);
    const running = leftBehind(process.pid);
    expect(await removeSingletonFolder(running.userDataDir, process.pid)).toBe(false);
    expect(existsSync(running.folder)).toBe(true);
  });

  it('leaves a folder that holds anything Chrome does not put there, and a user-data-dir with no singleton files', async () => {
    const pid = await goneChildPid();
    const { userDataDir, folder } = leftBehind(pid);
    mkdirSync(join(folder, 'someone-elses'));
    expect(await removeSingletonFolder(userDataDir, pid)).toBe(false);
    expect(existsSync(join(folder, 'someone-elses'))).toBe(true);
    const empty = mkdtempSync(join(tmpdir(), 'tmx-udd-'));
    made.push(empty);
    expect(await removeSingletonFolder(empty, pid)).toBe(false);
  });
});
