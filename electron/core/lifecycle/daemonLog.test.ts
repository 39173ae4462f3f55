import { mkdirSync, mkdtempSync, rmSync, statSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { daemonLogTail, readDaemonLog } from './daemonLog.js';
import { profileLogFile, resolvePaths, type TabmuxPaths } from '../platform/paths.js';

let root: string;
let paths: TabmuxPaths;
let file: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmx-log-'));
  paths = resolvePaths({ TABMUX_HOME: root });
  file = profileLogFile(paths, 'work');
  mkdirSync(dirname(file), { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('daemon log', () => {
  it('reads from a byte offset, so a multi-byte character before it does not shift the start', async () => {
    appendFileSync(file, 'earlier run: café ☕\n');
    const from = statSync(file).size;
    appendFileSync(file, 'this run\n');
    expect(await readDaemonLog(paths, 'work', from)).toBe('this run\n');
  });

  it('keeps the last lines only', async () => {
    appendFileSync(file, `${Array.from({ length: 20 }, (_, index) => `line ${index}`).join('\n')}\n`);
    expect(await daemonLogTail(paths, 'work', { lines: 3 })).toBe('line 17\nline 18\nline 19');
    expect((await daemonLogTail(paths, 'work')).split('\n')).toHaveLength(15);
  });

  it('names the file when nothing was logged', async () => {
    expect(await daemonLogTail(paths, 'work')).toBe(`(nothing was logged; see ${file})`);
    appendFileSync(file, 'before\n');
    expect(await daemonLogTail(paths, 'work', { from: statSync(file).size })).toBe(`(nothing was logged; see ${file})`);
  });
});
