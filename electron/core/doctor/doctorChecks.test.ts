import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkChrome, checkFolder, checkNode } from './doctorChecks.js';

const root = mkdtempSync(join(tmpdir(), 'tmx-doctor-'));

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('doctor checks', () => {
  it('compares Node with the floor package.json names', () => {
    expect(checkNode('99.0.0')).toMatchObject({ name: 'node', status: 'ok' });
    expect(checkNode('18.0.0')).toMatchObject({ name: 'node', status: 'fail', fix: expect.stringMatching(/install Node/) as unknown });
  });

  it('accepts a folder that is not there yet or is private, and says what to do about one others can write', async () => {
    expect(await checkFolder('data', join(root, 'absent'))).toMatchObject({ status: 'ok', message: expect.stringMatching(/does not exist yet/) as unknown });
    const mine = join(root, 'mine');
    mkdirSync(mine, { mode: 0o700 });
    chmodSync(mine, 0o700);
    expect(await checkFolder('data', mine, { private: true })).toMatchObject({ status: 'ok' });
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(await checkFolder('data', open)).toMatchObject({ status: 'fail', fix: `chmod 700 ${open}` });
    const readable = join(root, 'readable');
    mkdirSync(readable);
    chmodSync(readable, 0o755);
    expect(await checkFolder('runtime', readable, { private: true })).toMatchObject({ status: 'warn' });
    const link = join(root, 'link');
    symlinkSync(mine, link);
    expect(await checkFolder('runtime', link)).toMatchObject({ status: 'fail', message: expect.stringMatching(/symbolic link/) as unknown });
  });

  it('names a Chrome that is not there and how to point at one', async () => {
    const [found] = await checkChrome({ name: 'work', config: { chrome: join(root, 'no-chrome') } });
    expect(found).toMatchObject({ name: 'chrome (work)', status: 'fail', fix: expect.stringMatching(/--chrome PATH|TABMUX_CHROME/) as unknown });
    const [external] = await checkChrome({ name: 'mine', config: { browserUrl: 'http://127.0.0.1:9222' } });
    expect(external).toMatchObject({ status: 'ok', message: expect.stringMatching(/does not launch/) as unknown });
  });
});
