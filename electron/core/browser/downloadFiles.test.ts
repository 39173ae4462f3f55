import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { downloadName, placeDownload } from './downloadFiles.js';

const made: string[] = [];

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tabmux-dl-'));
  made.push(dir);
  return dir;
}

function staged(dir: string, text: string): string {
  const path = join(dir, `guid-${Math.random().toString(16).slice(2)}`);
  writeFileSync(path, text);
  return path;
}

afterEach(() => {
  for (const dir of made.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('downloadName', () => {
  it('keeps a plain name and takes out folders, control and format characters, and leading dots', () => {
    expect(downloadName('report.pdf')).toBe('report.pdf');
    expect(downloadName('../../etc/passwd')).toBe('passwd');
    expect(downloadName('..\\..\\win.ini')).toBe('win.ini');
    expect(downloadName('.bashrc')).toBe('bashrc');
    expect(downloadName('..')).toBe('download');
    expect(downloadName('a\u0000b\u001b[31mc\u202ed.txt')).toBe('a_b_[31mc_d.txt');
    expect(downloadName('')).toBe('download');
    const long = downloadName(`${'x'.repeat(300)}.tar.gz`);
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long.endsWith('.gz')).toBe(true);
  });
});

describe('placeDownload', () => {
  it('moves the file into the folders below the root, and never replaces a file of the same name', async () => {
    const dir = scratch();
    const root = join(dir, 'files');
    const first = await placeDownload(staged(dir, 'one'), root, ['sess-1', 'downloads'], 'report.txt');
    const second = await placeDownload(staged(dir, 'two'), root, ['sess-1', 'downloads'], 'report.txt');
    expect(first).toBe(join(root, 'sess-1', 'downloads', 'report.txt'));
    expect(second).toBe(join(root, 'sess-1', 'downloads', 'report (1).txt'));
    expect(readFileSync(first, 'utf8')).toBe('one');
    expect(readFileSync(second, 'utf8')).toBe('two');
    expect(readdirSync(dir).filter((name) => name.startsWith('guid-'))).toEqual([]);
  });

  it('refuses a folder that is a symbolic link, and does not write through a link at the name', async () => {
    const dir = scratch();
    const root = join(dir, 'files');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(join(root, 'sess-1'), { recursive: true });
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(root, 'sess-1', 'downloads'));
    await expect(placeDownload(staged(dir, 'x'), root, ['sess-1', 'downloads'], 'a.txt')).rejects.toMatchObject({ code: 'path_denied' });
    expect(readdirSync(elsewhere)).toEqual([]);

    const target = join(dir, 'target.txt');
    writeFileSync(target, 'keep');
    mkdirSync(join(root, 'sess-2', 'downloads'), { recursive: true });
    symlinkSync(target, join(root, 'sess-2', 'downloads', 'a.txt'));
    const saved = await placeDownload(staged(dir, 'new'), root, ['sess-2', 'downloads'], 'a.txt');
    expect(saved).toBe(join(root, 'sess-2', 'downloads', 'a (1).txt'));
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(existsSync(saved)).toBe(true);
  });
});
