import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLocalFileSystem } from './localFileSystem.js';

describe('isLocalFileSystem', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is false off Linux, and for a path it cannot look at', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmx-fs-'));
    dirs.push(dir);
    expect(await isLocalFileSystem(dir, 'darwin')).toBe(false);
    expect(await isLocalFileSystem(dir, 'win32')).toBe(false);
    expect(await isLocalFileSystem(join(dir, 'missing', 'folder'), 'linux')).toBe(false);
  });

  it.runIf(process.platform === 'linux')('tells a tmpfs (/dev/shm) as local', async () => {
    expect(await isLocalFileSystem('/dev/shm')).toBe(true);
  });
});
