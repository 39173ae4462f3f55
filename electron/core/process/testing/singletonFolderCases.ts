import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** A user-data-dir as a Chrome with this pid leaves it when killed: its lock, and its socket in a temp folder. */
function leftBehind(made: string[], pid: number, lockPid = pid): { userDataDir: string; folder: string } {
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

/**
 * What removing a Chrome's singleton temp folder must and must not do, for each of the code paths that do it (the
 * daemon's, and its Chrome watchdog's shell): `remove` is given the user-data-dir and the pid of the Chrome that ran
 * on it, with the files laid out as Chrome leaves them.
 */
export function describeSingletonFolderRemoval(name: string, remove: (userDataDir: string, pid: number) => Promise<void>): void {
  describe(name, () => {
    const made: string[] = [];

    afterEach(() => {
      for (const dir of made.splice(0)) {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('removes the temp folder a Chrome that exited without cleaning up kept its socket in', async () => {
      const pid = await goneChildPid();
      const { userDataDir, folder } = leftBehind(made, pid);
      await remove(userDataDir, pid);
      expect(existsSync(folder)).toBe(false);
    });

    it('leaves it when the lock names another Chrome (one started there since), or a Chrome still running', async () => {
      const pid = await goneChildPid();
      const other = leftBehind(made, pid, pid + 1);
      await remove(other.userDataDir, pid);
      expect(existsSync(other.folder)).toBe(true);
      const running = leftBehind(made, process.pid);
      await remove(running.userDataDir, process.pid);
      expect(existsSync(running.folder)).toBe(true);
    });

    it('leaves a folder that holds anything Chrome does not put there, hidden or not', async () => {
      const pid = await goneChildPid();
      const { userDataDir, folder } = leftBehind(made, pid);
      mkdirSync(join(folder, 'someone-elses'));
      await remove(userDataDir, pid);
      expect(existsSync(join(folder, 'someone-elses'))).toBe(true);
      const hidden = leftBehind(made, pid);
      writeFileSync(join(hidden.folder, '.someone-elses'), '');
      await remove(hidden.userDataDir, pid);
      expect(existsSync(join(hidden.folder, '.someone-elses'))).toBe(true);
    });

    it('does nothing on a user-data-dir with no singleton files', async () => {
      const pid = await goneChildPid();
      const empty = mkdtempSync(join(tmpdir(), 'tmx-udd-'));
      made.push(empty);
      await remove(empty, pid);
      expect(existsSync(empty)).toBe(true);
    });
  });
}
