import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import type { ToolResult } from '../../../shared/protocol.js';
import { uidOf, type BoundSession } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig, type HostileRig } from '../../helpers/hostileRig.js';
import { waitFor } from '../../helpers/waitFor.js';

/**
 * Chrome opens `file:` URLs itself, in its own process: `/proc/self/fd/<n>` there is Chrome's own open file (its
 * History, its logs), and `/dev/fd` leads to the same. A curious agent tries every spelling of those paths, directly
 * and from a page in its own session folder (iframes, nested ones, in its default and in an isolated context); it must
 * read its own folder and nothing else. Ground truth from Chrome and the disk: the file Chrome holds open is found by
 * the test in `/proc/<Chrome's pid>/fd`, and Chrome's own tab list says where tabs are.
 */

/** A line of a page list: its id and its URL. */
const PAGE_LINE = /^(\d+): .*\((\S+)\)(?: \[selected\])?$/gm;

const secret = (label: string): string => `${label}-${Math.random().toString(16).slice(2)}`;

/** A text file Chrome's browser process holds open (a LevelDB log of its profile): its fd there, and its first line. */
function chromeOpenText(pid: number, userDataDir: string): { fd: string; line: string } {
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (!target.startsWith(userDataDir) || !target.endsWith('/LOG')) {
      continue;
    }
    const line = readFileSync(`/proc/${pid}/fd/${fd}`, 'utf8').split('\n')[0]?.trim() ?? '';
    if (line.length > 20) {
      return { fd, line };
    }
  }
  throw new Error(`Chrome (pid ${pid}) holds no log of its profile open`);
}

/** The session's folder, as the agent learns it: from where its own screenshot was saved. */
async function folderOf(s: BoundSession): Promise<string> {
  const saved = /Saved screenshot to (.+)\.$/m.exec(await s.text('take_screenshot', { filePath: 'whoami.png' }))?.[1];
  if (saved === undefined) {
    throw new Error('the screenshot answer names no file');
  }
  return dirname(saved);
}

/** All an agent can read after an attempt: the tool's answer and what its tab now shows. */
async function loot(s: BoundSession, attempt: Promise<ToolResult>): Promise<string> {
  const answer = await attempt;
  const shown = await s.call('evaluate_script', { function: "() => location.href + '\\n' + (document.body?.innerText ?? '')" });
  return `${textOf(answer)}\n${textOf(shown)}`;
}

async function chromeFile(r: HostileRig): Promise<{ pid: number; fd: string; line: string; userDataDir: string }> {
  const { browser } = await r.status();
  if (browser.kind !== 'launched' || browser.pid === null) {
    throw new Error('this rig launches its Chrome');
  }
  return { pid: browser.pid, userDataDir: browser.userDataDir, ...chromeOpenText(browser.pid, browser.userDataDir) };
}

/** Chrome's own list: no tab shows a file outside the folders the test expects. */
async function fileTabs(r: HostileRig, allowed: string[] = []): Promise<string[]> {
  return (await r.chromeTabs()).map((tab) => tab.url).filter((url) => url.startsWith('file:') && !allowed.some((prefix) => url.startsWith(prefix)));
}

/** Direct attempts: the agent's own navigations, to every spelling of Chrome's open files and their listings. */
async function directAttempts(r: HostileRig): Promise<void> {
  const attacker = await r.session('attacker');
  const { pid, fd, line } = await chromeFile(r);
  const spellings = [
    `file:///proc/self/fd/${fd}`,
    `file:///dev/fd/${fd}`,
    `file:///proc/thread-self/fd/${fd}`,
    `file:///proc/self/fd/../fd/${fd}`,
    `file:///%70roc/self/fd/${fd}`,
    `file:///proc%2Fself%2Ffd%2F${fd}`,
    `file:////proc//self//fd//${fd}`,
    `FILE://localhost/proc/self/fd/${fd}`,
    `file:///proc/${pid}/fd/${fd}`,
    'file:///proc/self/fd/',
    'file:///proc/self/fd',
    'file:///dev/fd/',
    `view-source:file:///proc/self/fd/${fd}`,
  ];
  await attacker.text('new_page', { url: r.server.page('<p>start</p>', 'Start') });
  for (const url of spellings) {
    const read = await loot(attacker, attacker.call('navigate_page', { url }));
    expect(read, url).not.toContain(line);
    expect(read, url).not.toContain('Index of');
  }
  for (const url of [`file:///proc/self/fd/${fd}`, `file:///dev/fd/${fd}`, 'file:///proc/self/fd/']) {
    for (const extra of [{}, { isolatedContext: 'ctx-proc' }]) {
      const read = await loot(attacker, attacker.call('new_page', { url, ...extra }));
      expect(read, url).not.toContain(line);
      expect(read, url).not.toContain('Index of');
    }
  }
  expect(await fileTabs(r)).toEqual([]);
}

/** A page of the agent's own folder, opened every way an agent can, with frames (nested ones too) everywhere else. */
async function probePage(r: HostileRig): Promise<void> {
  const { attacker, victim } = await r.pair();
  const { fd, line, userDataDir } = await chromeFile(r);
  const victimValue = secret('VICTIM');
  const saved = await victim.text('evaluate_script', { function: `() => ${JSON.stringify(victimValue)}`, filePath: 'loot.json' });
  const victimFile = /Output saved to (.+)\.$/m.exec(saved)?.[1] ?? '';
  expect(readFileSync(victimFile, 'utf8')).toContain(victimValue);
  const config = join(r.t.home, 'config', 'profiles.json');
  mkdirSync(dirname(config), { recursive: true });
  writeFileSync(config, '{"profiles":{"default":{"configValue":"TABMUX-CONFIG"}}}');
  const browserPath = readFileSync(join(userDataDir, 'DevToolsActivePort'), 'utf8').split('\n')[1] ?? '';
  expect(browserPath).toMatch(/^\/devtools\/browser\//);

  const folder = await folderOf(attacker);
  const own = secret('OWN');
  const nested = secret('NESTED-OWN');
  writeFileSync(join(folder, 'note.txt'), own);
  writeFileSync(join(folder, 'nested.txt'), nested);
  const frame = (src: string): string => `<iframe src="${src}" width="600" height="80"></iframe>`;
  // Frames inside a frame: the browser names them by ids only the page's frame tree ties to the tab.
  writeFileSync(join(folder, 'inner.html'), ['nested.txt', `file:///dev/fd/${fd}`, 'file:///proc/self/fd/', `file://${victimFile}`].map(frame).join(''));
  const probe = [
    'note.txt',
    'inner.html',
    `file:///proc/self/fd/${fd}`,
    `file:///proc/thread-self/fd/${fd}`,
    'file:///proc/self/fd/',
    `file:///dev/fd/${fd}`,
    `file://${victimFile}`,
    `file://${dirname(victimFile)}/`,
    `file://${config}`,
    `file://${join(userDataDir, 'DevToolsActivePort')}`,
  ];
  writeFileSync(join(folder, 'probe.html'), `<!doctype html><title>Probe</title>${probe.map(frame).join('')}`);
  const probeUrl = `file://${folder}/probe.html`;

  for (const open of [
    async () => attacker.call('navigate_page', { url: probeUrl }),
    async () => attacker.call('new_page', { url: probeUrl }),
    async () => attacker.call('new_page', { url: probeUrl, isolatedContext: 'ctx-probe' }),
  ]) {
    const opened = await open();
    expect(opened.isError, textOf(opened)).toBeFalsy();
    const read = `${textOf(opened)}\n${await attacker.text('take_snapshot')}`;
    expect(read).toContain(own);
    expect(read).toContain(nested);
    for (const stolen of [line, victimValue, 'TABMUX-CONFIG', browserPath, 'Index of']) {
      expect(read).not.toContain(stolen);
    }
  }
  // Chrome itself shows the probe only, in the attacker's tabs; its refused frames are not tabs.
  expect(await fileTabs(r, [`file://${folder}/`])).toEqual([]);
}

/** A fresh session goes to its own file first; its page opens popups to its folder and elsewhere. */
async function popups(r: HostileRig): Promise<void> {
  const { attacker, victim } = await r.pair();
  const { fd } = await chromeFile(r);
  const saved = await victim.text('evaluate_script', { function: '() => "victim"', filePath: 'loot.json' });
  const victimFile = /Output saved to (.+)\.$/m.exec(saved)?.[1] ?? '';
  // The attacker's first call goes to its own file: the tab opened for it is known to be its own first.
  const folder = join(dirname(dirname(victimFile)), attacker.id);
  mkdirSync(folder, { recursive: true });
  const own = secret('POPUP-OWN');
  writeFileSync(join(folder, 'popup.txt'), own);
  const targets = { own: 'popup.txt', proc: `file:///proc/self/fd/${fd}`, dev: 'file:///dev/fd/', victim: `file://${victimFile}` };
  const links = Object.entries(targets).map(([name, href]) => `<a href="${href}" target="_blank">${name}</a>`);
  writeFileSync(join(folder, 'links.html'), `<!doctype html><title>Links</title>${links.join(' ')}`);
  await attacker.text('navigate_page', { url: `file://${folder}/links.html` });
  for (const name of Object.keys(targets)) {
    await attacker.text('click', { uid: uidOf(await attacker.text('take_snapshot'), 'link', name) });
  }
  // The popup of its own file is the attacker's page (the browser says which tab opened it), and shows the file.
  const popupUrl = `file://${folder}/popup.txt`;
  const popup = await waitFor(async () => [...(await attacker.text('list_pages')).matchAll(PAGE_LINE)].find((match) => match[2] === popupUrl)?.[1], 'the own popup to be listed');
  await attacker.text('select_page', { pageId: Number(popup) });
  expect(await loot(attacker, attacker.call('take_snapshot'))).toContain(own);
  // The others were refused, and Chrome keeps no tab on them.
  await waitFor(async () => ((await fileTabs(r, [`file://${folder}/`])).length === 0 ? true : undefined), 'Chrome to keep no tab at a refused file');
}

describe.each(TOPOLOGIES)("Chrome's own files on $name", (topology) => {
  const rig = useHostileRig(topology);
  it("an agent cannot open Chrome's open files or their listing through /proc or /dev, however the path is spelled", () => directAttempts(rig()));
  it('a page in its own session folder reads that folder only: not /proc, /dev, another session or tabmux, in frames at any depth', () => probePage(rig()));
  it('its first call may open its own file, and a popup its page opens is its own: it reads that folder only', () => popups(rig()));
});

describe.each(TOPOLOGIES)("Chrome's own files on $name, a window per session", (topology) => {
  const rig = useHostileRig(topology, { isolation: 'window' });
  it('a page in its own session folder reads that folder only: not /proc, /dev, another session or tabmux, in frames at any depth', () => probePage(rig()));
  it('its first call may open its own file, and a popup its page opens is its own: it reads that folder only', () => popups(rig()));
});
