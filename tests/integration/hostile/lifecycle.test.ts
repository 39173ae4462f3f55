import { describe, expect, it } from 'vitest';
import { uidOf } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';
import { waitFor, waitUntil } from '../../helpers/waitFor.js';

/**
 * Tabs follow their sessions whatever the timing: a popup a page opens after the action that armed it returned,
 * a session closed while its `new_page` is still loading or while its worker is down, a `new_page` that fails while
 * other sessions' tabs are opening. Which tabs exist is read from Chrome itself.
 */
describe.each(TOPOLOGIES)('tab ownership under races on $name', (topology) => {
  const rig = useHostileRig(topology);

  it("a late popup belongs to its opener's session and closes with it", async () => {
    const { server, control } = rig();
    const { attacker: opener, victim: bystander } = await rig().pair();
    const popupUrl = server.page('<p>late popup</p>', 'Late popup', 'late-popup');
    const openerUrl = server.page(`<button onclick="setTimeout(() => window.open('${popupUrl}'), 1000)">Later</button>`, 'Opener');
    await opener.text('new_page', { url: openerUrl });
    const clicked = await opener.text('click', { uid: uidOf(await opener.text('take_snapshot'), 'button', 'Later') });
    // The popup opens after the click's answer: nothing in that answer can tell whose it is.
    expect(clicked).not.toContain(popupUrl);
    await waitFor(() => rig().tabAt(popupUrl), 'the late popup to open');

    await waitUntil(async () => (await opener.text('list_pages')).includes(popupUrl), "the late popup to be listed as the opener's page");
    expect(await bystander.text('list_pages', { includeUnowned: true })).not.toContain(popupUrl);
    await control.call('tabmux/session.close', { session: opener.id });
    await rig().waitGone(popupUrl, 'the late popup to close with its session');
    await rig().waitGone(openerUrl, "the opener's own tab to close with its session");
  });

  it('closing a session while its new_page loads leaves none of its tabs open', async () => {
    const { server, control } = rig();
    const s = await rig().session('closing');
    const held = server.hold('<p>slow</p>', 'Slow', 'slow');
    const before = new Set((await rig().chromeTabs()).map((tab) => tab.id));
    const opening = s.call('new_page', { url: held.url });
    await held.arrived;
    const closing = control.call('tabmux/session.close', { session: s.id });
    // The daemon reads a connection's lines in order: once status answers, the close is under way.
    await control.call('tabmux/status');
    held.release();
    await Promise.allSettled([opening, closing]);
    await waitUntil(async () => (await rig().chromeTabs()).every((tab) => before.has(tab.id)), 'every tab the closed session opened to be closed', 10_000);
  });

  it('closing a session while its worker is down leaves none of its tabs open', async () => {
    const { server, control } = rig();
    const s = await rig().session('orphaned');
    const url = server.page('<p>mine</p>', 'Mine', 'mine');
    await s.text('new_page', { url });
    const worker = await rig().workerOf(s);
    const pid = (await rig().status()).workers[worker]?.pid;
    if (typeof pid !== 'number' || pid <= 0) {
      throw new Error(`worker ${worker} has no process id`);
    }
    process.kill(pid, 'SIGKILL');
    await waitUntil(async () => (await rig().status()).workers[worker]?.state !== 'ready', 'the daemon to see its worker down');
    await control.call('tabmux/session.close', { session: s.id }).catch(() => undefined);
    await rig().waitGone(url, 'the tab of a session closed while its worker was down');
  });

  it("a failed new_page closes its own tab and no other session's new tabs", async () => {
    const { server, control } = rig();
    const { attacker: failing, victim: other } = await rig().pair();
    // The other session's page will open a popup the moment the server says so (its click gave the user gesture).
    const gate = server.hold('', 'Gate', 'gate');
    const popupUrl = server.page('<p>popup of the other session</p>', 'Other popup', 'other-popup');
    await other.text('new_page', { url: server.page(`<button onclick="fetch('${gate.url}').then(() => window.open('${popupUrl}'))">Arm</button>`, 'Other') });
    await other.text('click', { uid: uidOf(await other.text('take_snapshot'), 'button', 'Arm') });

    const before = new Set((await rig().chromeTabs()).map((tab) => tab.id));
    const doomed = server.hold('', 'Never', 'doomed');
    const opening = failing.call('new_page', { url: doomed.url });
    await doomed.arrived;
    // Meanwhile: the other session's popup opens, the other session opens a tab, a person opens one.
    gate.release();
    await waitFor(() => rig().tabAt(popupUrl), "the other session's popup to open");
    const otherNew = server.page('<p>new tab of the other session</p>', 'Other new', 'other-new');
    const humanUrl = server.page('<p>a person opened this</p>', 'Human', 'human');
    const otherOpening = other.call('new_page', { url: otherNew });
    const humanOpening = control.call('tabmux/tabs.open', { url: humanUrl });
    if (topology.workers > 1) {
      // On a pool the other session's worker opens its tab while the failing call still waits.
      await waitFor(() => rig().tabAt(otherNew), "the other session's new tab to open");
    }
    doomed.fail();
    expect((await opening).isError).toBe(true);
    expect((await otherOpening).isError).toBeUndefined();
    await humanOpening;

    const kept = [popupUrl, otherNew, humanUrl];
    await waitUntil(
      async () => (await rig().chromeTabs()).every((tab) => before.has(tab.id) || kept.includes(tab.url)),
      "the failed call's own tab to close",
      10_000,
    );
    for (const url of kept) {
      expect(await rig().tabAt(url), url).toBeDefined();
    }
    expect(await other.text('list_pages')).toContain(otherNew);
  });
});
