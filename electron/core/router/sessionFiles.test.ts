import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { confineFileArgs, folderBytes, sessionFolder, writeSessionFile } from './sessionFiles.js';

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

describe('a full session folder', () => {
  const fill = (bytes: number): void => {
    mkdirSync(join(folder, 'downloads'), { recursive: true });
    writeFileSync(join(folder, 'downloads', 'big.bin'), Buffer.alloc(bytes));
    writeFileSync(join(folder, 'a.png'), Buffer.alloc(100));
  };

  it('counts the files below it, in every subfolder, and not what a link points at', async () => {
    fill(5000);
    writeFileSync(join(root, 'outside.bin'), Buffer.alloc(10_000));
    symlinkSync(join(root, 'outside.bin'), join(folder, 'link.bin'));
    expect(await folderBytes(folder)).toBe(5100);
    expect(await folderBytes(join(root, 'nowhere'))).toBe(0);
  });

  it('refuses a call that would write into it, and says what to do instead', async () => {
    fill(5000);
    await expect(confineFileArgs('take_screenshot', { filePath: 'b.png' }, folder, 5100)).rejects.toMatchObject({
      code: 'folder_full',
      message: expect.stringContaining('Leave out filePath to get the result in the answer') as unknown,
    });
    await expect(confineFileArgs('get_network_request', { reqid: 1, responseFilePath: 'body.json' }, folder, 1000)).rejects.toMatchObject({ code: 'folder_full' });
  });

  it('lets through what writes nothing there, what only reads, and everything below the limit or without one', async () => {
    fill(5000);
    expect(await confineFileArgs('take_screenshot', { format: 'png' }, folder, 1000)).toEqual({ format: 'png' });
    expect(await confineFileArgs('upload_file', { uid: 'x', filePaths: ['a.png'] }, folder, 1000)).toEqual({ uid: 'x', filePaths: [join(folder, 'a.png')] });
    expect(await confineFileArgs('take_screenshot', { filePath: 'b.png' }, folder, 5101)).toEqual({ filePath: join(folder, 'b.png') });
    expect(await confineFileArgs('take_screenshot', { filePath: 'b.png' }, folder, 0)).toEqual({ filePath: join(folder, 'b.png') });
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
