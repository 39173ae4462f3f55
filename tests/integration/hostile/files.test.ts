import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import { uidOf, type BoundSession } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';

/**
 * File tools see the session's own folder only. A curious agent tries every way upstream's file parameters offer to
 * read what another session saved (uploading it into its own page, or running it as a script) and to write where
 * it should not; `take_snapshot` with `filePath` writes exactly what upstream would (`<path>.txt`).
 */
/** Files a test put in the OS temp folder, removed after it. */
const planted: string[] = [];

const secret = (): string => `SECRET-${Math.random().toString(16).slice(2)}`;

/** The session's folder, as the agent learns it: from where its own screenshot was saved. */
async function folderOf(s: BoundSession): Promise<string> {
  const saved = /Saved screenshot to (.+)\.$/m.exec(await s.text('take_screenshot', { filePath: 'whoami.png' }))?.[1];
  if (saved === undefined) {
    throw new Error('the screenshot answer names no file');
  }
  return dirname(saved);
}

/** The victim saves a script result holding a secret in its folder; returns the file and the secret. */
async function victimSaves(victim: BoundSession): Promise<{ path: string; value: string }> {
  const value = secret();
  const answer = await victim.text('evaluate_script', { function: `() => ${JSON.stringify(value)}`, filePath: 'loot.json' });
  const path = /Output saved to (.+)\.$/m.exec(answer)?.[1] ?? '';
  expect(readFileSync(path, 'utf8')).toContain(value);
  return { path, value };
}

describe.each(TOPOLOGIES)('file tools on $name', (topology) => {
  const rig = useHostileRig(topology);

  /** Everything the attacker can read after trying `path` with each tool that reads files. */
  async function tryToRead(attacker: BoundSession, path: string): Promise<string> {
    await attacker.text('new_page', { url: rig().server.page('<input type="file" aria-label="pick">', 'Upload') });
    const upload = await attacker.call('upload_file', { uid: uidOf(await attacker.text('take_snapshot'), 'button', 'pick'), filePaths: [path] });
    const picked = await attacker.call('evaluate_script', { function: "async () => { const file = document.querySelector('input').files[0]; return file ? await file.text() : 'no file'; }" });
    const asScript = await attacker.call('evaluate_script', { sourcePath: path, format: 'script' });
    return [upload, picked, asScript].map((result) => textOf(result)).join('\n');
  }

  const ROUTES: { name: string; path: (victimFile: string, victim: BoundSession, attackerFolder: string) => string }[] = [
    { name: 'a relative path up into its folder', path: (_file, victim) => `../${victim.id}/loot.json` },
    { name: 'a path that climbs out of a subfolder', path: (_file, victim) => `notes/../../${victim.id}/loot.json` },
    { name: 'an absolute path', path: (file) => file },
    { name: 'a file: URL', path: (file) => `file://${file}` },
    {
      name: 'a symbolic link planted in its own folder',
      path: (file, _victim, folder) => {
        symlinkSync(file, join(folder, 'link.json'));
        return 'link.json';
      },
    },
    {
      name: 'a copy in the OS temp folder, where upstream looks by default',
      path: (file) => {
        const copy = join(tmpdir(), `tabmux-hostile-${Math.random().toString(16).slice(2)}.json`);
        writeFileSync(copy, readFileSync(file));
        planted.push(copy);
        return copy;
      },
    },
  ];

  it('reads its own saved file with the same tools (the reads below would succeed if allowed)', async () => {
    const own = await rig().session();
    const { value } = await victimSaves(own);
    expect(await tryToRead(own, 'loot.json')).toContain(value);
  });

  for (const route of ROUTES) {
    it(`cannot read another session's saved file through ${route.name}`, async () => {
      const { attacker, victim } = await rig().pair();
      const { path, value } = await victimSaves(victim);
      try {
        const readable = await tryToRead(attacker, route.path(path, victim, await folderOf(attacker)));
        expect(readable).not.toContain(value);
      } finally {
        planted.splice(0).forEach((file) => rmSync(file, { force: true }));
      }
    });
  }

  it('cannot save into the OS temp folder for another session to read', async () => {
    const { attacker, victim } = await rig().pair();
    const value = secret();
    const shared = join(tmpdir(), `tabmux-hostile-${Math.random().toString(16).slice(2)}.json`);
    try {
      await victim.call('evaluate_script', { function: `() => ${JSON.stringify(value)}`, filePath: shared });
      expect(await tryToRead(attacker, shared)).not.toContain(value);
    } finally {
      rmSync(shared, { force: true });
    }
  });

  it("cannot read another session's saved file by navigating to it with file://", async () => {
    const { attacker, victim } = await rig().pair();
    const { path, value } = await victimSaves(victim);
    const answer = await attacker.call('navigate_page', { url: `file://${path}` });
    const shown = await attacker.call('evaluate_script', { function: "() => document.body?.innerText ?? ''" });
    expect(`${textOf(answer)}\n${textOf(shown)}`).not.toContain(value);
  });

  it("writes neither tabmux's config nor another session's files", async () => {
    const { attacker, victim } = await rig().pair();
    const { path, value } = await victimSaves(victim);
    const config = join(rig().t.home, 'config', 'profiles.json');
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, '{"profiles":{}}');
    const targets = [config, '../../../../../config/profiles.json', path, `../${victim.id}/loot.json`];
    for (const filePath of targets) {
      await attacker.call('take_screenshot', { filePath });
      await attacker.call('evaluate_script', { function: '() => "overwritten"', filePath });
    }
    expect(readFileSync(config, 'utf8')).toBe('{"profiles":{}}');
    expect(readFileSync(path, 'utf8')).toContain(value);
  });

  it('take_snapshot with filePath writes <path>.txt with working tokens, and only that file', async () => {
    const s = await rig().session();
    const folder = await folderOf(s);
    writeFileSync(join(folder, 'page.md'), 'my own notes');
    await s.text('new_page', { url: rig().server.page(`<button onclick="document.title = 'pressed'">Press</button>`, 'Snap') });
    for (const [filePath, written] of [
      ['snap', 'snap.txt'],
      ['page.md', 'page.txt'],
    ] as const) {
      const before = readdirSync(folder).sort();
      const answer = await s.call('take_snapshot', { filePath });
      expect(answer.isError, textOf(answer)).toBeUndefined();
      expect(readdirSync(folder).sort()).toEqual([...new Set([...before, written])].sort());
      const saved = readFileSync(join(folder, written), 'utf8');
      expect(saved).not.toMatch(/uid=\d+_\d+/);
      const press = uidOf(saved, 'button', 'Press');
      expect(press).toMatch(new RegExp(`^u:${s.short}:\\d+:\\d+_\\d+$`));
      expect((await s.call('click', { uid: press })).isError).toBeUndefined();
      expect(await s.text('evaluate_script', { function: '() => document.title' })).toContain('pressed');
    }
    expect(readFileSync(join(folder, 'page.md'), 'utf8')).toBe('my own notes');
    expect(existsSync(join(folder, 'snap'))).toBe(false);
  });

  it('a filePath naming the session folder itself is refused, and nothing is written beside the folder', async () => {
    const s = await rig().session();
    const folder = await folderOf(s);
    const filesDir = dirname(folder);
    await s.text('new_page', { url: rig().server.page('<p>here</p>', 'Here') });
    for (const filePath of ['.', 'sub/..', './', '', folder, `file://${folder}/`]) {
      for (const [tool, args] of [
        ['take_snapshot', {}],
        ['take_screenshot', {}],
        ['evaluate_script', { function: '() => 1' }],
      ] as const) {
        const answer = await s.call(tool, { ...args, filePath });
        expect(answer._meta?.['tabmux/error'], `${tool} ${JSON.stringify(filePath)}: ${textOf(answer)}`).toBe('path_denied');
      }
    }
    await rig().control.call('tabmux/session.close', { session: s.id });
    // The disk itself: the profile's files folder holds sessions' folders and nothing else, during and after.
    const strays = readdirSync(filesDir, { withFileTypes: true }).filter((entry) => !entry.isDirectory());
    expect(strays.map((entry) => entry.name)).toEqual([]);
  });

  it('take_snapshot with filePath never writes through a symbolic link', async () => {
    const s = await rig().session();
    const folder = await folderOf(s);
    const outsideFile = join(rig().t.home, `outside-${s.short}.txt`);
    const outsideDir = join(rig().t.home, `outside-${s.short}`);
    writeFileSync(outsideFile, 'ORIGINAL');
    mkdirSync(outsideDir);
    symlinkSync(outsideFile, join(folder, 'trap.txt'));
    symlinkSync(outsideDir, join(folder, 'dir'));
    await s.text('new_page', { url: rig().server.page('<button>Press</button>', 'Snap') });
    const token = uidOf(await s.text('take_snapshot'), 'button', 'Press');
    for (const filePath of ['trap', 'trap.txt', 'dir/snap']) {
      await s.call('take_snapshot', { filePath });
    }
    expect(readFileSync(outsideFile, 'utf8')).toBe('ORIGINAL');
    expect(readdirSync(outsideDir)).toEqual([]);
    // A refused save leaves the session where it was: the tokens it has still work.
    expect((await s.call('click', { uid: token })).isError).toBeUndefined();
  });
});

describe.each(TOPOLOGIES)('a session folder at its limit, on $name', (topology) => {
  const LIMIT = 300_000;
  const rig = useHostileRig(topology, { sessionFilesMaxBytes: LIMIT });

  /** Bytes of the files in a folder and its subfolders, read from the disk. */
  const bytesIn = (folder: string): number =>
    readdirSync(folder, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .reduce((sum, entry) => sum + readFileSync(join(entry.parentPath, entry.name)).length, 0);

  it("refuses what would write more into it, with what to do instead, and leaves a neighbour's files alone", async () => {
    const { attacker, victim } = await rig().pair();
    await attacker.text('new_page', { url: rig().server.page(`<pre>${'tabmux '.repeat(20_000)}</pre>`, 'Wordy') });
    const folder = await folderOf(attacker);
    let refused: string | undefined;
    for (let index = 0; index < 40 && refused === undefined; index++) {
      const result = await attacker.call('take_snapshot', { filePath: `snap-${index}.txt` });
      refused = result.isError === true ? textOf(result) : undefined;
    }
    expect(refused).toContain('already holds');
    expect(refused).toContain('Leave out filePath to get the result in the answer');
    // The call that found the folder full wrote nothing: it holds at most one file past the limit.
    const held = bytesIn(folder);
    expect(held).toBeGreaterThanOrEqual(LIMIT);
    expect(held).toBeLessThan(2 * LIMIT);
    // What needs no file still works, and so does the neighbour's own folder.
    expect(await attacker.text('take_snapshot')).toContain('Wordy');
    expect(await victim.text('take_screenshot', { filePath: 'mine.png' })).toContain('Saved screenshot to');
  });
});
