import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileDownloadsDir, profileDownloadStagingDir, profileFilesDir, resolvePaths } from '../../../electron/core/platform/paths.js';
import { uidOf, type BoundSession } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig, type HostileRig } from '../../helpers/hostileRig.js';
import { openUnseenPopup } from '../../helpers/unseenPopup.js';
import { waitFor, waitUntil } from '../../helpers/waitFor.js';

/**
 * A hostile page downloads files. A download goes to the folder of the session whose tab started it (popups and
 * cross-site frames included, told apart by the browser's own ids), nowhere near the user's Downloads folder, never
 * past the profile's size cap, and not at all when the profile turns downloads off; the agent is told in its next
 * result. Where files are is read from the file system.
 */

const CAP = 1_000_000;
/** What one session may keep here: a few files, and less than three files of 900 kB. */
const SESSION_FILES = 4;
const SESSION_BYTES = 2_500_000;

function paths(rig: HostileRig): { files: string; staging: string; unowned: string } {
  const resolved = resolvePaths({ TABMUX_HOME: rig.t.home });
  return { files: profileFilesDir(resolved, 'default'), staging: profileDownloadStagingDir(resolved, 'default'), unowned: profileDownloadsDir(resolved, 'default') };
}

function downloadsOf(rig: HostileRig, s: BoundSession): string {
  return join(paths(rig).files, s.id, 'downloads');
}

const unique = (stem: string): string => `${stem}-${Math.random().toString(16).slice(2, 10)}.txt`;

/** Where Chrome puts downloads when nobody tells it otherwise. */
const userDownloads = (name: string): string => join(homedir(), 'Downloads', name);

/** A page that starts the download as soon as it loads, by a link click. */
function downloadingPage(rig: HostileRig, link: string, extra = ''): string {
  return rig.server.page(`<a id="d" href="${link}"${extra}>get</a><script>document.getElementById('d').click()</script>`, 'Downloads');
}

/**
 * The result that carries a note about a download: notes come once, with the session's next result, which may be
 * `first` (the answer of the call that started the download); otherwise the session is asked until one does.
 */
async function downloadNote(s: BoundSession, first: string): Promise<string> {
  let answer = first;
  return waitFor(async () => {
    const text = answer;
    answer = await s.text('list_pages');
    return /Note: .*download/.test(text) ? text : undefined;
  }, 'a note about the download');
}

async function waitForFile(path: string): Promise<string> {
  return waitFor(() => (existsSync(path) ? readFileSync(path, 'utf8') : undefined), `the file ${path}`);
}

function stagingEmpty(rig: HostileRig): boolean {
  const { staging } = paths(rig);
  return !existsSync(staging) || readdirSync(staging).length === 0;
}

describe.each(TOPOLOGIES)('downloads on $name', (topology) => {
  const rig = useHostileRig(topology, { downloadMaxBytes: CAP, downloadSessionMaxFiles: SESSION_FILES, downloadSessionMaxBytes: SESSION_BYTES });

  it("a page's download lands in its session's own folder, not in the user's Downloads, and the agent is told where", async () => {
    const { attacker, victim } = await rig().pair();
    const name = unique('report');
    const body = `contents of ${name}`;
    const opened = await attacker.text('new_page', { url: downloadingPage(rig(), rig().server.download(name, body)) });
    const saved = join(downloadsOf(rig(), attacker), name);
    expect(await waitForFile(saved)).toBe(body);
    expect(existsSync(userDownloads(name))).toBe(false);
    expect(existsSync(downloadsOf(rig(), victim))).toBe(false);
    expect(await downloadNote(attacker, opened)).toContain(saved);
    expect(stagingEmpty(rig())).toBe(true);
  });

  it("a download from a popup, a cross-site frame, a frame inside one or an isolated context belongs to the session whose page started it", async () => {
    const { attacker, victim } = await rig().pair();
    const viaPopup = unique('popup');
    const viaFrame = unique('frame');
    const viaContext = unique('context');
    const viaNested = unique('nested');
    // A popup needs a user's gesture: the agent clicks the link, which opens a tab that turns into the download.
    await attacker.text('new_page', { url: rig().server.page(`<a href="${rig().server.download(viaPopup, viaPopup)}" target="_blank">get it</a>`, 'Popup') });
    await attacker.text('click', { uid: uidOf(await attacker.text('take_snapshot'), 'link', 'get it') });
    const framed = downloadingPage(rig(), rig().server.download(viaFrame, viaFrame)).replace('127.0.0.1', 'localhost');
    await attacker.text('new_page', { url: rig().server.page(`<iframe src="${framed}"></iframe>`, 'Framed') });
    // A frame of the cross-site frame's own site runs in its process, and is not in the page's frame tree either.
    const nested = downloadingPage(rig(), rig().server.download(viaNested, viaNested)).replace('127.0.0.1', 'localhost');
    const outer = rig().server.page(`<iframe src="${nested}"></iframe>`, 'Outer').replace('127.0.0.1', 'localhost');
    await attacker.text('new_page', { url: rig().server.page(`<iframe src="${outer}"></iframe>`, 'Nested') });
    await attacker.text('new_page', { url: downloadingPage(rig(), rig().server.download(viaContext, viaContext)), isolatedContext: 'dl' });
    for (const name of [viaPopup, viaFrame, viaNested, viaContext]) {
      expect(await waitForFile(join(downloadsOf(rig(), attacker), name))).toBe(name);
      expect(existsSync(userDownloads(name))).toBe(false);
    }
    expect(existsSync(downloadsOf(rig(), victim))).toBe(false);
  });

  it('a download from a frame inside a cross-site frame of a popup that loaded before the daemon looked belongs to the session whose page opened it', async () => {
    const { attacker, victim } = await rig().pair();
    const openerUrl = rig().server.page('<p>opener</p>', 'Opener', 'unseen-opener');
    await attacker.text('new_page', { url: openerUrl });
    const name = unique('unseen-frame');
    // The daemon runs on this thread, which stands still while the popup opens, its frame (another site, another
    // process, left out of the popup's own frame tree) and that frame's own frame load, and the download begins: the
    // daemon saw none of these frames come.
    const popup = await openUnseenPopup(rig().port, openerUrl, { downloadNames: [name] });
    try {
      expect(await waitForFile(join(downloadsOf(rig(), attacker), name))).toBe(name);
      expect(existsSync(join(paths(rig()).unowned, name))).toBe(false);
      expect(existsSync(userDownloads(name))).toBe(false);
      expect(existsSync(downloadsOf(rig(), victim))).toBe(false);
    } finally {
      await popup.close();
    }
  });

  it('downloads whose tab cannot be told (their frames gone before the daemon looked) count together as one session\'s, and no more of them are kept', async () => {
    const { attacker, victim } = await rig().pair();
    const openerUrl = rig().server.page('<p>opener</p>', 'Opener', 'untold-opener');
    await attacker.text('new_page', { url: openerUrl });
    const names = Array.from({ length: SESSION_FILES + 2 }, () => unique('untold'));
    // As above, the daemon's thread stands still while a popup loads its frames and they begin their downloads; then
    // the popup removes those frames, so that neither its frame tree nor the browser's target list holds them when the
    // daemon looks for their tab.
    const popup = await openUnseenPopup(rig().port, openerUrl, { downloadNames: names, removeFrames: true });
    const { unowned } = paths(rig());
    const kept = (): string[] => names.filter((name) => existsSync(join(unowned, name)));
    try {
      // The browser wrote every download into the staging folder while the daemon stood still: once that is empty,
      // the daemon has kept or deleted each.
      await waitUntil(() => stagingEmpty(rig()), () => `the staging folder to empty (kept so far in ${unowned}: ${kept().length})`);
      for (const name of names) {
        expect(existsSync(userDownloads(name))).toBe(false);
        expect(existsSync(join(downloadsOf(rig(), attacker), name))).toBe(false);
        expect(existsSync(join(downloadsOf(rig(), victim), name))).toBe(false);
      }
    } finally {
      await popup.close();
    }
    expect(kept().length).toBe(SESSION_FILES);
  });

  it('a download past the size cap is cancelled and nothing of it is kept anywhere', async () => {
    const s = await rig().session('hoarder');
    const announced = unique('announced');
    const unannounced = unique('unannounced');
    const big = Buffer.alloc(5 * CAP, 0x41);
    const first = await s.text('new_page', { url: downloadingPage(rig(), rig().server.download(announced, big)) });
    expect(await downloadNote(s, first)).toContain(`cancelled at ${CAP} bytes`);
    const second = await s.text('new_page', { url: downloadingPage(rig(), rig().server.download(unannounced, big, false)) });
    expect(await downloadNote(s, second)).toContain(`cancelled at ${CAP} bytes`);
    for (const name of [announced, unannounced]) {
      expect(existsSync(join(downloadsOf(rig(), s), name))).toBe(false);
      expect(existsSync(userDownloads(name))).toBe(false);
    }
    expect(stagingEmpty(rig())).toBe(true);
  });

  it("a download from a tab nobody owns is kept in the profile's downloads folder, and status says where downloads go", async () => {
    const name = unique('person');
    await rig().control.call('tabmux/tabs.open', { url: downloadingPage(rig(), rig().server.download(name, name)) });
    expect(await waitForFile(join(paths(rig()).unowned, name))).toBe(name);
    expect(existsSync(userDownloads(name))).toBe(false);
    expect((await rig().status()).downloads).toEqual({
      mode: 'session',
      maxBytes: CAP,
      sessionMaxBytes: SESSION_BYTES,
      sessionMaxFiles: SESSION_FILES,
      sessionFolder: join(paths(rig()).files, '<session>', 'downloads'),
      unownedFolder: paths(rig()).unowned,
    });
  });
});

describe.each(TOPOLOGIES)('a page flooding downloads on $name', (topology) => {
  const rig = useHostileRig(topology, { downloadMaxBytes: CAP, downloadSessionMaxFiles: SESSION_FILES, downloadSessionMaxBytes: SESSION_BYTES });

  /** Everything the agent reads meanwhile: its results until the page has started every download and none runs. */
  async function readUntilDone(s: BoundSession, earlier: string[]): Promise<string[]> {
    const results = [...earlier];
    await waitFor(async () => {
      results.push(await s.text('evaluate_script', { function: '() => window.started === true' }));
      return results[results.length - 1]?.includes('true') === true && stagingEmpty(rig()) ? true : undefined;
    }, 'the page to have started every download, and every one to have ended');
    results.push(await s.text('list_pages'));
    return results;
  }

  /** Notes about downloads in one result. */
  const downloadNotes = (text: string): string[] => text.split('\n').filter((line) => /^Note: .*download/.test(line));

  it("keeps no more files than a session may, tells its agent once and briefly, and leaves a neighbour's downloads alone", async () => {
    const { attacker, victim } = await rig().pair();
    const links = Array.from({ length: 30 }, () => {
      const name = unique('flood');
      return rig().server.download(name, name);
    });
    // Six links a turn, as fast as the browser lets a page start downloads without anyone's gesture.
    const flood = rig().server.page(
      `<script>const links = ${JSON.stringify(links)}; let next = 0; const turn = setInterval(() => {` +
        `for (let i = 0; i < 6 && next < links.length; i++) { const a = document.createElement('a'); a.href = links[next++]; a.download = ''; document.body.append(a); a.click(); }` +
        `if (next >= links.length) { clearInterval(turn); window.started = true; } }, 250);</script>`,
      'Flood',
    );
    const results = await readUntilDone(attacker, [await attacker.text('new_page', { url: flood })]);
    expect(readdirSync(downloadsOf(rig(), attacker))).toHaveLength(SESSION_FILES);
    const notes = results.flatMap(downloadNotes);
    expect(notes.filter((note) => note.includes('as many downloads as one session may keep'))).toHaveLength(1);
    expect(notes.find((note) => note.includes('may keep'))).toContain(`${SESSION_FILES} files`);
    for (const result of results) {
      expect(downloadNotes(result).length).toBeLessThanOrEqual(6);
    }

    const name = unique('neighbour');
    const opened = await victim.text('new_page', { url: downloadingPage(rig(), rig().server.download(name, name)) });
    expect(await waitForFile(join(downloadsOf(rig(), victim), name))).toBe(name);
    expect(await downloadNote(victim, opened)).toContain('was saved to');
  });

  it('keeps no more bytes than a session may, also of downloads that run at once', async () => {
    const s = await rig().session('hoarder');
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // As many as the session may keep files, so only their bytes are too many.
    const names = Array.from({ length: SESSION_FILES }, () => unique('parallel'));
    const links = names.map((name, index) => rig().server.download(name, Buffer.alloc(900_000, 0x41 + index), index % 2 === 0, held));
    const page = rig().server.page(
      `<script>setTimeout(() => { for (const link of ${JSON.stringify(links)}) { const a = document.createElement('a'); a.href = link; a.download = ''; document.body.append(a); a.click(); } window.started = true; }, 200);</script>`,
      'Parallel',
    );
    const earlier = [await s.text('new_page', { url: page })];
    // Every download holds at its first bytes until all have begun, then they all run at once.
    await waitFor(async () => {
      earlier.push(await s.text('evaluate_script', { function: '() => window.started === true' }));
      return earlier[earlier.length - 1]?.includes('true') === true ? true : undefined;
    }, 'the page to start its downloads');
    release();
    const results = await readUntilDone(s, earlier);
    const kept = existsSync(downloadsOf(rig(), s)) ? readdirSync(downloadsOf(rig(), s)) : [];
    const bytes = kept.reduce((sum, name) => sum + statSync(join(downloadsOf(rig(), s), name)).size, 0);
    expect(bytes).toBeLessThanOrEqual(SESSION_BYTES);
    expect(kept.length).toBeLessThanOrEqual(2);
    expect(results.flatMap(downloadNotes).filter((note) => note.includes(`${SESSION_BYTES} bytes in this profile`))).toHaveLength(1);
  });
});

describe.each(TOPOLOGIES)('downloads turned off on $name', (topology) => {
  const rig = useHostileRig(topology, { downloads: 'off' });

  it('a download is refused: no file anywhere, and the agent is told', async () => {
    const s = await rig().session('downloader');
    const name = unique('refused');
    const opened = await s.text('new_page', { url: downloadingPage(rig(), rig().server.download(name, name)) });
    expect(await downloadNote(s, opened)).toContain('downloads are turned off');
    expect(existsSync(join(downloadsOf(rig(), s), name))).toBe(false);
    expect(existsSync(userDownloads(name))).toBe(false);
    expect(stagingEmpty(rig())).toBe(true);
  });
});
