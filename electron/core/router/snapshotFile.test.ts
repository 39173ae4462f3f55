import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from './Session.js';
import { rewriteSnapshotFile } from './snapshotFile.js';

describe('rewriteSnapshotFile', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tabmux-snapshot-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('puts session tokens of a new epoch into a saved snapshot', async () => {
    const session = new Session('sess-00000000abcd1234', 'abcd1234', null, 0, 0);
    const page = session.addPage(1, 'created');
    const file = join(dir, 'snap.txt');
    await writeFile(file, 'uid=3_0 RootWebArea "T"\n  uid=3_1 button "Go"');
    await rewriteSnapshotFile(session, page, file);
    expect(await readFile(file, 'utf8')).toBe('uid=u:abcd1234:1:3_0 RootWebArea "T"\n  uid=u:abcd1234:1:3_1 button "Go"');
    expect(page.snapshotEpoch).toBe(1);
    expect([...page.snapshotUids]).toEqual(['3_0', '3_1']);
  });

  it('leaves the session alone when there is no file', async () => {
    const session = new Session('sess-00000000abcd1234', 'abcd1234', null, 0, 0);
    const page = session.addPage(1, 'created');
    await rewriteSnapshotFile(session, page, join(dir, 'missing.txt'));
    expect(page.snapshotEpoch).toBeNull();
    expect(session.epoch).toBe(0);
  });
});
