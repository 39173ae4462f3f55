import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureSecureDir, readFileNoFollow, writeFileNoFollow } from './secureFs.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmx-secure-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('runtime dir checks', () => {
  it('creates the dir with mode 0700', async () => {
    const dir = join(root, 'run');
    await ensureSecureDir(dir);
    const { statSync } = await import('node:fs');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a symlink', async () => {
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(root, 'link'));
    await expect(ensureSecureDir(join(root, 'link'))).rejects.toMatchObject({ code: 'insecure_runtime_dir' });
  });

  it('refuses a dir writable by group or others', async () => {
    const dir = join(root, 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    await expect(ensureSecureDir(dir)).rejects.toThrow(/chmod 700/);
  });

  it.skipIf(process.getuid?.() !== 0)('refuses a dir owned by another user', async () => {
    const dir = join(root, 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 4242, 4242);
    await expect(ensureSecureDir(dir)).rejects.toThrow(/owned by uid 4242/);
  });
});

describe('pid files', () => {
  it('are never written through a symlink', async () => {
    const target = join(root, 'victim');
    writeFileSync(target, 'keep me');
    symlinkSync(target, join(root, 'pid'));
    await expect(writeFileNoFollow(join(root, 'pid'), '123')).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(readFileNoFollow(join(root, 'pid'))).rejects.toMatchObject({ code: 'ELOOP' });
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('are written 0600', async () => {
    const file = join(root, 'p.pid');
    await writeFileNoFollow(file, '1');
    const { statSync } = await import('node:fs');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await readFileNoFollow(join(root, 'missing'))).toBeUndefined();
  });
});
