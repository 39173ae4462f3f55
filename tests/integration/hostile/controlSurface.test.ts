import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import type { ToolResult } from '../../../shared/protocol.js';
import { uidOf, type BoundSession } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig, type HostileRig } from '../../helpers/hostileRig.js';
import { waitFor } from '../../helpers/waitFor.js';

/**
 * The browser's own control surface (its DevTools HTTP endpoints, `devtools://`, `chrome://inspect`, and the
 * profile's `DevToolsActivePort` on disk) must be out of an agent's reach, whether the agent navigates there itself
 * or a page it visits goes there by fetch, redirect or link. The attacker here knows everything the test knows
 * (the port, the victim's target id): the worst case.
 */
describe.each(TOPOLOGIES)("the browser's control surface on $name", (topology) => {
  const rig = useHostileRig(topology);

  interface Scene {
    attacker: BoundSession;
    victim: BoundSession;
    victimUrl: string;
    victimId: string;
    devtools: string;
  }

  async function scene(r: HostileRig): Promise<Scene> {
    const { attacker, victim } = await r.pair();
    const victimUrl = r.server.page('<p>private mail</p>', 'Victim inbox', 'victim-inbox');
    await victim.text('new_page', { url: victimUrl });
    const victimId = (await r.tabAt(victimUrl))?.id;
    if (victimId === undefined) {
      throw new Error("Chrome does not list the victim's tab");
    }
    return { attacker, victim, victimUrl, victimId, devtools: `http://127.0.0.1:${r.port}` };
  }

  /** All an agent can read after an attempt: the tool's answer and what its tab now shows. */
  async function loot(s: BoundSession, attempt: Promise<ToolResult>): Promise<string> {
    const answer = await attempt;
    const shown = await s.call('evaluate_script', { function: "() => location.href + '\\n' + (document.body?.innerText ?? '')" });
    return `${textOf({ content: answer.content })}\n${textOf(shown)}`;
  }

  async function expectVictimUntouched(r: HostileRig, { victim, victimUrl, victimId }: Scene): Promise<void> {
    expect(await victim.text('evaluate_script', { function: '() => document.body.innerText' })).toContain('private mail');
    expect((await r.chromeTabs()).find((tab) => tab.id === victimId)?.url).toBe(victimUrl);
  }

  it('an agent cannot read /json/list by navigate_page or new_page', async () => {
    const r = rig();
    const s = await scene(r);
    await s.attacker.text('new_page', { url: r.server.page('<p>start</p>', 'Start') });
    const byNavigation = await loot(s.attacker, s.attacker.call('navigate_page', { url: `${s.devtools}/json/list` }));
    expect(byNavigation).not.toContain(s.victimUrl);
    const byNewPage = await loot(s.attacker, s.attacker.call('new_page', { url: `${s.devtools}/json/list` }));
    expect(byNewPage).not.toContain(s.victimUrl);
  });

  it("an agent cannot close another session's tab through /json/close", async () => {
    const r = rig();
    const s = await scene(r);
    await loot(s.attacker, s.attacker.call('navigate_page', { url: `${s.devtools}/json/close/${s.victimId}` }));
    await loot(s.attacker, s.attacker.call('new_page', { url: `${s.devtools}/json/close/${s.victimId}` }));
    await expectVictimUntouched(r, s);
  });

  it("a page's fetch reads no tab list and closes no tab", async () => {
    const r = rig();
    const s = await scene(r);
    const key = `fetch-${s.attacker.id}`;
    const report = `(what) => fetch(${JSON.stringify(r.server.reportPath(key))}, { method: 'POST', body: String(what) })`;
    const script = `<script>
      const report = ${report};
      fetch('${s.devtools}/json/list').then((res) => res.text()).then(report, (e) => report('list failed ' + e));
      fetch('${s.devtools}/json/list', { mode: 'no-cors' }).then(() => report('list sent'), (e) => report('list refused ' + e));
      fetch('${s.devtools}/json/close/${s.victimId}', { mode: 'no-cors' }).then(() => report('close sent'), (e) => report('close refused ' + e));
    </script>`;
    await s.attacker.text('new_page', { url: r.server.page(script, 'Fetcher') });
    const reports = await waitFor(() => (r.server.reports(key).length === 3 ? r.server.reports(key) : undefined), 'the three fetches to settle');
    expect(reports.join('\n')).not.toContain(s.victimUrl);
    await expectVictimUntouched(r, s);
    // The blocked requests were refused, not answered.
    expect(reports.filter((line) => line.endsWith(' sent'))).toEqual([]);
  });

  it('a redirect from an ordinary site reaches neither /json/list nor /json/close', async () => {
    const r = rig();
    const s = await scene(r);
    const toList = r.server.redirect(`${s.devtools}/json/list`);
    expect(await loot(s.attacker, s.attacker.call('navigate_page', { url: toList }))).not.toContain(s.victimUrl);
    const toClose = r.server.redirect(`${s.devtools}/json/close/${s.victimId}`);
    await loot(s.attacker, s.attacker.call('navigate_page', { url: toClose }));
    await expectVictimUntouched(r, s);
  });

  it('a link on a page reaches neither /json/list nor /json/close', async () => {
    const r = rig();
    const s = await scene(r);
    const links = `<a href="${s.devtools}/json/close/${s.victimId}">close it</a> <a href="${s.devtools}/json/list">list them</a>`;
    const linksUrl = r.server.page(links, 'Links');
    await s.attacker.text('new_page', { url: linksUrl });
    await loot(s.attacker, s.attacker.call('click', { uid: uidOf(await s.attacker.text('take_snapshot'), 'link', 'close it') }));
    await expectVictimUntouched(r, s);
    await s.attacker.text('navigate_page', { url: linksUrl });
    const listed = await loot(s.attacker, s.attacker.call('click', { uid: uidOf(await s.attacker.text('take_snapshot'), 'link', 'list them') }));
    expect(listed).not.toContain(s.victimUrl);
  });

  for (const target of [
    { name: 'devtools:// attached to the victim', url: (s: Scene, port: number) => `devtools://devtools/bundled/inspector.html?ws=127.0.0.1:${port}/devtools/page/${s.victimId}` },
    { name: 'chrome://inspect', url: () => 'chrome://inspect/#pages' },
  ]) {
    it(`an agent's tab does not stay on ${target.name}`, async () => {
      const r = rig();
      const s = await scene(r);
      const startUrl = r.server.page('<p>start</p>', 'Start');
      await s.attacker.text('new_page', { url: startUrl });
      const tabId = (await r.tabAt(startUrl))?.id;
      const answer = await loot(s.attacker, s.attacker.call('navigate_page', { url: target.url(s, r.port) }));
      expect(answer).not.toContain(s.victimUrl);
      await waitFor(
        async () => {
          const url = (await r.chromeTabs()).find((tab) => tab.id === tabId)?.url ?? 'gone';
          return /^(devtools|chrome):/.test(url) ? undefined : url;
        },
        `the attacker's tab to leave ${target.name}`,
        5_000,
      );
      await expectVictimUntouched(r, s);
    });
  }

  it("an agent cannot read the profile's DevToolsActivePort through file://", async () => {
    const r = rig();
    const s = await scene(r);
    const { browser } = await r.status();
    if (browser.kind !== 'launched') {
      throw new Error('this rig launches its Chrome');
    }
    const portFile = join(browser.userDataDir, 'DevToolsActivePort');
    const browserPath = readFileSync(portFile, 'utf8').split('\n')[1] ?? '';
    expect(browserPath).toMatch(/^\/devtools\/browser\//);
    await s.attacker.text('new_page', { url: r.server.page('<p>start</p>', 'Start') });
    expect(await loot(s.attacker, s.attacker.call('navigate_page', { url: `file://${portFile}` }))).not.toContain(browserPath);
    expect(await loot(s.attacker, s.attacker.call('new_page', { url: `file://${portFile}` }))).not.toContain(browserPath);
    expect(await loot(s.attacker, s.attacker.call('navigate_page', { url: `file://${browser.userDataDir}/` }))).not.toContain('DevToolsActivePort');
  });
});
