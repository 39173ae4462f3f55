import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoundSession } from '../../helpers/daemonFixture.js';
import { ChromeCdp } from '../../helpers/chromeCdp.js';
import { TOPOLOGIES, useHostileRig, type HostileRig } from '../../helpers/hostileRig.js';

/**
 * `resize_page` acts on the caller's page only. In tab isolation sessions' tabs share the browser's windows, so a
 * session that resized the window would change every other session's viewport (and the size new tabs open at); in
 * window isolation the window is the session's own. Sizes are read from Chrome: the pages' own `innerWidth` and
 * `innerHeight`, and the windows' bounds on the test's own DevTools connection.
 */

/** The viewport a session's current page has, as the page itself reports it. */
async function viewportOf(s: BoundSession): Promise<{ width: number; height: number }> {
  const text = await s.text('evaluate_script', { function: '() => [innerWidth, innerHeight]' });
  const match = /\[\s*(\d+)\s*,\s*(\d+)\s*\]/.exec(text);
  if (!match?.[1] || !match[2]) {
    throw new Error(`no viewport in: ${text}`);
  }
  return { width: Number(match[1]), height: Number(match[2]) };
}

/** Opens a page of its own for a session and returns its Chrome target id (from `/json/list`). */
async function ownPage(rig: HostileRig, s: BoundSession, title: string): Promise<string> {
  const url = rig.server.page(`<p>${title}</p>`, title);
  await s.text('new_page', { url });
  const tab = await rig.tabAt(url);
  if (!tab) {
    throw new Error(`Chrome lists no tab at ${url}`);
  }
  return tab.id;
}

const WIDTH = 517;
const HEIGHT = 389;

describe.each(TOPOLOGIES)('resize_page in tab isolation on $name', (topology) => {
  const rig = useHostileRig(topology);
  let cdp: ChromeCdp;

  beforeAll(async () => {
    cdp = await ChromeCdp.connect(rig().port);
  });

  afterAll(() => cdp.close());

  it("changes only the caller's page: other sessions' pages, the shared window and later tabs keep their size", async () => {
    const { attacker, victim } = await rig().pair();
    const attackerTab = await ownPage(rig(), attacker, 'Resizer');
    const victimTab = await ownPage(rig(), victim, 'Bystander');
    const before = await viewportOf(victim);
    const windowBefore = await cdp.windowBounds(victimTab);
    const ownWindowBefore = await cdp.windowBounds(attackerTab);
    expect(before).not.toEqual({ width: WIDTH, height: HEIGHT });

    const answer = await attacker.text('resize_page', { width: WIDTH, height: HEIGHT });
    expect(await cdp.windowBounds(victimTab)).toEqual(windowBefore);
    expect(await cdp.windowBounds(attackerTab)).toEqual(ownWindowBefore);
    expect(await viewportOf(victim)).toEqual(before);
    expect(await viewportOf(attacker)).toEqual({ width: WIDTH, height: HEIGHT });
    expect(answer).toContain(`${WIDTH}x${HEIGHT}`);
    expect(answer).toContain('Only this page changed');

    // The size sticks to the page across a navigation, and a session that comes later opens at the usual size.
    await attacker.text('navigate_page', { url: rig().server.page('<p>next</p>', 'Next') });
    expect(await viewportOf(attacker)).toEqual({ width: WIDTH, height: HEIGHT });
    const later = await rig().session('later');
    await ownPage(rig(), later, 'Later');
    expect(await viewportOf(later)).toEqual(before);
  });
});

describe.each(TOPOLOGIES)('resize_page in window isolation on $name', (topology) => {
  const rig = useHostileRig(topology, { isolation: 'window' });
  let cdp: ChromeCdp;

  beforeAll(async () => {
    cdp = await ChromeCdp.connect(rig().port);
  });

  afterAll(() => cdp.close());

  it("resizes the session's own window, and no other session's", async () => {
    const { attacker, victim } = await rig().pair();
    const attackerTab = await ownPage(rig(), attacker, 'Own window');
    const victimTab = await ownPage(rig(), victim, 'Other window');
    const before = await viewportOf(victim);
    const victimWindow = await cdp.windowBounds(victimTab);
    const attackerWindow = await cdp.windowBounds(attackerTab);

    await attacker.text('resize_page', { width: WIDTH, height: HEIGHT });
    expect(await viewportOf(attacker)).toEqual({ width: WIDTH, height: HEIGHT });
    expect(await cdp.windowBounds(attackerTab)).not.toEqual(attackerWindow);
    expect(await viewportOf(victim)).toEqual(before);
    expect(await cdp.windowBounds(victimTab)).toEqual(victimWindow);
  });
});
