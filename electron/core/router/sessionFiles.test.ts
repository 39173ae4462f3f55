import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { confineFileArgs, sessionFolder, writeSessionFile } from './sessionFiles.js';

let root: string;
let folder: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tabmux-files-'));
  folder = sessionFolder(join(root, 'files'), 'sess-1');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('confineFileArgs', () => {
  it('takes relative paths inside the session folder', async () => {
    const args = await confineFileArgs('take_screenshot', { filePath: 'shots/a.png', format: 'png' }, folder);
    expect(args).toEqual({ filePath: join(folder, 'shots/a.png'), format: 'png' });
  });

  it('refuses paths outside the folder, however they are spelled', async () => {
    for (const filePath of ['/etc/passwd', '../sess-2/a.txt', `${folder}/../sess-2/a.txt`, join(root, 'config', 'profiles.json'), tmpdir()]) {
      await expect(confineFileArgs('take_snapshot', { filePath }, folder)).rejects.toMatchObject({ code: 'path_denied' });
    }
  });

  it('refuses a path through a symbolic link, including the file upstream writes instead of the one named', async () => {
    mkdirSync(folder, { recursive: true });
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'precious');
    symlinkSync(outside, join(folder, 'snap.txt'));
    symlinkSync(root, join(folder, 'up'));
    await expect(confineFileArgs('take_snapshot', { filePath: 'snap' }, folder)).rejects.toMatchObject({ code: 'path_denied' });
    await expect(confineFileArgs('take_screenshot', { filePath: 'up/outside.txt' }, folder)).rejects.toMatchObject({ code: 'path_denied' });
    await expect(confineFileArgs('upload_file', { uid: 'x', filePaths: ['ok.txt', 'up/outside.txt'] }, folder)).rejects.toMatchObject({ code: 'path_denied' });
  });

  it('refuses a file path that names the session folder itself, so nothing is written beside it', async () => {
    for (const [tool, param] of [
      ['take_snapshot', 'filePath'],
      ['take_screenshot', 'filePath'],
      ['evaluate_script', 'filePath'],
      ['take_heapsnapshot', 'filePath'],
      ['get_network_request', 'responseFilePath'],
    ] as const) {
      for (const value of ['.', 'sub/..', '', './', folder, `${folder}/`, `${folder}/sub/..`, `file://${folder}/`]) {
        await expect(confineFileArgs(tool, { [param]: value }, folder), `${tool} ${param}=${value}`).rejects.toMatchObject({ code: 'path_denied' });
      }
    }
    await expect(confineFileArgs('upload_file', { uid: 'x', filePaths: ['.'] }, folder)).rejects.toMatchObject({ code: 'path_denied' });
    // A folder parameter may name the session folder: upstream writes its reports inside it.
    expect(await confineFileArgs('lighthouse_audit', { outputDirPath: '.' }, folder)).toEqual({ outputDirPath: folder });
    expect(await confineFileArgs('take_snapshot', { filePath: 'sub/../snap' }, folder)).toEqual({ filePath: join(folder, 'snap') });
  });

  it('leaves tools without file parameters and non-file values alone', async () => {
    expect(await confineFileArgs('click', { uid: '../x' }, folder)).toEqual({ uid: '../x' });
    expect(await confineFileArgs('install_pwa', { installUrlOrBundleUrl: 'https://example.com/app' }, folder)).toEqual({ installUrlOrBundleUrl: 'https://example.com/app' });
    await expect(confineFileArgs('install_pwa', { installUrlOrBundleUrl: 'file:///etc/passwd' }, folder)).rejects.toMatchObject({ code: 'path_denied' });
  });
});

describe('writeSessionFile', () => {
  it('never writes through a symbolic link', async () => {
    mkdirSync(folder, { recursive: true });
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'precious');
    symlinkSync(outside, join(folder, 'snap.txt'));
    await expect(writeSessionFile(join(folder, 'snap.txt'), 'x')).rejects.toThrow();
    expect(readFileSync(outside, 'utf8')).toBe('precious');
    await writeSessionFile(join(folder, 'plain.txt'), 'hello');
    expect(readFileSync(join(folder, 'plain.txt'), 'utf8')).toBe('hello');
  });
});
