import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findChrome } from './findChrome.js';

const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A folder of the given programs; `executable: false` leaves one without the execute bit. */
function binDir(programs: Record<string, boolean>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tmx-chrome-'));
  dirs.push(dir);
  mkdirSync(dir, { recursive: true });
  for (const [name, executable] of Object.entries(programs)) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), executable ? 0o755 : 0o644);
  }
  return dir;
}

describe('findChrome on Linux', () => {
  it('takes the first name in order of preference, from the first folder on PATH that has it', () => {
    const first = binDir({ chromium: true });
    const second = binDir({ 'google-chrome': true, chromium: true });
    expect(findChrome(undefined, { PATH: `${first}:${second}` }, 'linux')).toBe(join(second, 'google-chrome'));
    expect(findChrome(undefined, { PATH: `${first}:${binDir({})}` }, 'linux')).toBe(join(first, 'chromium'));
  });

  it('reads a PATH folder written with a trailing slash', () => {
    const dir = binDir({ chromium: true });
    expect(findChrome(undefined, { PATH: `${dir}/` }, 'linux')).toBe(join(dir, 'chromium'));
  });

  it('skips a file that is not executable', () => {
    const dir = binDir({ 'google-chrome': false, chromium: true });
    expect(findChrome(undefined, { PATH: dir }, 'linux')).toBe(join(dir, 'chromium'));
  });

  it('prefers an explicit path, then TABMUX_CHROME, and says which one is wrong', () => {
    const dir = binDir({ mine: true, chromium: true });
    expect(findChrome(join(dir, 'mine'), { PATH: dir }, 'linux')).toBe(join(dir, 'mine'));
    expect(findChrome(undefined, { PATH: dir, TABMUX_CHROME: join(dir, 'mine') }, 'linux')).toBe(join(dir, 'mine'));
    expect(() => findChrome(join(dir, 'missing'), { PATH: dir }, 'linux')).toThrow(/Chrome not found at .*missing/);
  });
});
