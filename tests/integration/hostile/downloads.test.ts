import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileDownloadsDir, profileDownloadStagingDir, profileFilesDir, resolvePaths } from '../../../electron/core/platform/paths.js';
import { uidOf, type BoundSession } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig, type HostileRig } from '../../helpers/hostileRig.js';
import { waitFor } from '../../helpers/waitFor.js';

/**
 * A hostile page downloads files. A download goes to the folder of the session whose tab started it (popups and
 * cross-site frames included, told apart by the browser's own ids), nowhere near the user's Downloads folder, never
 * past the profile's size cap, and not at all when the profile turns downloads off; the agent is told in its next
 * result. Where files are is read from the file system.
 */

const CAP = 1_000_000;

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
  const rig = useHostileRig(topology, { downloadMaxBytes: CAP });

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

  it("a download from a popup, a cross-site frame or an isolated context belongs to the session whose page started it", async () => {
    const { attacker, victim } = await rig().pair();
    const viaPopup = unique('popup');
    const viaFrame = unique('frame');
    const viaContext = unique('context');
    // A popup needs a user's gesture: the agent clicks the link, which opens a tab that turns into the download.
    await attacker.text('new_page', { url: rig().server.page(`<a href="${rig().server.download(viaPopup, viaPopup)}" target="_blank">get it</a>`, 'Popup') });
    await attacker.text('click', { uid: uidOf(await attacker.text('take_snapshot'), 'link', 'get it') });
    const framed = downloadingPage(rig(), rig().server.download(viaFrame, viaFrame)).replace('127.0.0.1', 'localhost');
    await attacker.text('new_page', { url: rig().server.page(`<iframe src="${framed}"></iframe>`, 'Framed') });
    await attacker.text('new_page', { url: downloadingPage(rig(), rig().server.download(viaContext, viaContext)), isolatedContext: 'dl' });
    for (const name of [viaPopup, viaFrame, viaContext]) {
      expect(await waitForFile(join(downloadsOf(rig(), attacker), name))).toBe(name);
      expect(existsSync(userDownloads(name))).toBe(false);
    }
    expect(existsSync(downloadsOf(rig(), victim))).toBe(false);
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
      sessionFolder: join(paths(rig()).files, '<session>', 'downloads'),
      unownedFolder: paths(rig()).unowned,
    });
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
