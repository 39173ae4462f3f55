import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileRefusal, NO_FILES, USER_FILES, type FileScope } from './fileAccess.js';

const home = mkdtempSync(join(tmpdir(), 'tabmux-files-'));
const data = join(home, 'data');
const mine = join(data, 'files', 'sess-mine');
const theirs = join(data, 'files', 'sess-theirs');
const elsewhere = join(home, 'elsewhere');
for (const dir of [mine, theirs, elsewhere]) {
  mkdirSync(dir, { recursive: true });
}
writeFileSync(join(mine, 'page.html'), '<p>mine</p>');
writeFileSync(join(theirs, 'loot.json'), '"secret"');
symlinkSync(join(theirs, 'loot.json'), join(mine, 'link.json'));
symlinkSync(mine, join(elsewhere, 'to-mine'));
symlinkSync('/proc/self', join(elsewhere, 'self'));
symlinkSync('/dev/fd', join(elsewhere, 'fds'));

const session: FileScope = { kind: 'session', folder: mine };
const roots = { protectedRoots: [data] };
const refusal = (url: string, scope: FileScope): string | undefined => fileRefusal(new URL(url), scope, roots);

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('fileRefusal', () => {
  it("lets a session's tabs read its own folder, however the path is written", () => {
    for (const url of [
      `file://${mine}/page.html`,
      `file://${mine}/`,
      `file://${mine}`,
      `file://${mine}//page.html`,
      `file://${mine}/./page.html`,
      `file://${mine}/sub/../page.html`,
      `file://${mine}/%70age.html`,
      `file://${mine}/not-there-yet.txt`,
      `file://${elsewhere}/to-mine/page.html`,
      `file://${theirs}/../sess-mine/page.html`,
    ]) {
      expect(refusal(url, session), url).toBeUndefined();
    }
  });

  it("refuses a session's tabs everything outside its folder, through links, .. and encodings", () => {
    for (const url of [
      `file://${theirs}/loot.json`,
      `file://${mine}/link.json`,
      `file://${mine}/../sess-theirs/loot.json`,
      `file://${mine}/%2e%2e/sess-theirs/loot.json`,
      `file://${mine}%2F..%2Fsess-theirs/loot.json`,
      `file://${data}/files/`,
      `file://${mine}-other/x`,
      `file://${home}/`,
      'file:///etc/hostname',
      'file:///',
    ]) {
      expect(refusal(url, session), url).toBeDefined();
    }
  });

  it("refuses the process file system and /dev under every spelling, even where the daemon's own open file is the session's", () => {
    // The daemon holds a file of the session folder open: the same fd in the browser is some other file.
    const fd = openSync(join(mine, 'page.html'), 'r');
    try {
      for (const url of [
        `file:///proc/self/fd/${fd}`,
        `file:///proc/${process.pid}/fd/${fd}`,
        `file:///proc/thread-self/fd/${fd}`,
        `file:///dev/fd/${fd}`,
        `file:///proc/self/fd/../fd/${fd}`,
        `file:///proc/self/fd/%2e%2e/fd/${fd}`,
        `file:///%70roc/self/fd/${fd}`,
        `file:///proc%2Fself%2Ffd%2F${fd}`,
        `file:////proc//self//fd//${fd}`,
        'file:///proc/self/fd/',
        'file:///proc/self/fd',
        'file:///proc/',
        'file:///dev/fd/',
        'file:///dev/stdin',
        `file://${elsewhere}/self/fd/${fd}`,
        `file://${elsewhere}/fds/${fd}`,
        `file://localhost/proc/self/fd/${fd}`,
      ]) {
        expect(refusal(url, session), url).toBeDefined();
        expect(refusal(url, USER_FILES), url).toBeDefined();
      }
    } finally {
      closeSync(fd);
    }
  });

  it("leaves a user's own tabs Chrome's file access, less tabmux's folders and /dev", () => {
    expect(refusal(`file://${elsewhere}/`, USER_FILES)).toBeUndefined();
    expect(refusal('file:///etc/hostname', USER_FILES)).toBeUndefined();
    for (const url of [`file://${mine}/page.html`, `file://${data}/`, `file://${elsewhere}/to-mine/page.html`, 'file:///dev/null', 'file:///dev/']) {
      expect(refusal(url, USER_FILES), url).toBeDefined();
    }
  });

  it('gives a tab of nobody no files, and refuses file URLs naming a host', () => {
    expect(refusal(`file://${mine}/page.html`, NO_FILES)).toBeDefined();
    expect(refusal('file:///etc/hostname', NO_FILES)).toBeDefined();
    expect(refusal(`file://example.com${mine}/page.html`, session)).toBeDefined();
  });
});
