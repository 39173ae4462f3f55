import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDaemonPidFile } from './DaemonPidFile.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmx-pid-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const record = { pid: 1234, chromePid: 5678, userDataDir: '/tmp/u', startedAt: 1 };

describe('readDaemonPidFile', () => {
  it('reads what a daemon writes', async () => {
    const file = join(root, 'default.pid');
    writeFileSync(file, `${JSON.stringify(record)}\n`);
    await expect(readDaemonPidFile(file)).resolves.toEqual(record);
  });

  it('treats a missing, malformed or incomplete file as no owner', async () => {
    await expect(readDaemonPidFile(join(root, 'missing.pid'))).resolves.toBeUndefined();
    writeFileSync(join(root, 'bad.pid'), '{"pid": 12');
    await expect(readDaemonPidFile(join(root, 'bad.pid'))).resolves.toBeUndefined();
    writeFileSync(join(root, 'partial.pid'), '{"pid": 12}');
    await expect(readDaemonPidFile(join(root, 'partial.pid'))).resolves.toBeUndefined();
  });

  it('does not follow a symlink', async () => {
    const real = join(root, 'real.pid');
    writeFileSync(real, JSON.stringify(record));
    symlinkSync(real, join(root, 'link.pid'));
    await expect(readDaemonPidFile(join(root, 'link.pid'))).resolves.toBeUndefined();
  });
});
