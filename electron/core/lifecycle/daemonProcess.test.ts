import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { watchForSocket } from './daemonProcess.js';

// The fallback poll is set far beyond the test's own timeout: a wait that ends did so because the folder was watched.
const NEVER = { watched: 3_600_000, unwatched: 3_600_000 };

describe('watchForSocket', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  const folder = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'tmx-watch-'));
    dirs.push(dir);
    return dir;
  };

  it.skipIf(process.platform === 'win32')('wakes a pending wait when the socket appears', async () => {
    const dir = folder();
    const socket = join(dir, 'default.sock');
    const watch = watchForSocket(socket, NEVER);
    try {
      const woken = watch.wait();
      writeFileSync(socket, '');
      await woken;
    } finally {
      watch.close();
    }
  });

  it.skipIf(process.platform === 'win32')('wakes the next wait when the socket appeared while none was pending', async () => {
    const dir = folder();
    const socket = join(dir, 'default.sock');
    const watch = watchForSocket(socket, NEVER);
    try {
      // The event arrives while no wait is pending: between a failed connect and the next wait.
      const seen = new Promise<void>((resolve) => {
        const probe = watchForSocket(socket, NEVER);
        void probe.wait().then(() => {
          probe.close();
          resolve();
        });
      });
      writeFileSync(socket, '');
      await seen;
      await watch.wait();
    } finally {
      watch.close();
    }
  });

  it('falls back to polling where the folder cannot be watched', async () => {
    const watch = watchForSocket(join(tmpdir(), 'no-such-folder-for-tabmux', 'default.sock'), { watched: 3_600_000, unwatched: 1 });
    try {
      await watch.wait();
    } finally {
      watch.close();
    }
  });
});
