import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import { pagesOf, uidOf } from '../../helpers/daemonFixture.js';
import { usePageProbe } from '../../helpers/pageProbe.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';
import { openUnseenPopup } from '../../helpers/unseenPopup.js';
import { waitFor, waitUntil } from '../../helpers/waitFor.js';

/**
 * A page that leaves a JavaScript dialog open blocks its renderer, and upstream waits on such a page, holding its
 * worker, the first time it looks at it. Dialogs stay the business of the session whose page shows them: no other
 * session's call waits on one. Calls have a short limit here, so a call that waited on a dialog fails as a timeout
 * instead of answering (`text` fails the test on any tool error). Whether a page is blocked is asked of Chrome over
 * the test's own connection.
 */
// Far below the minutes a call waiting on a dialog would take, and enough for a loaded 2-core machine's slow steps.
const CALL_TIMEOUT_MS = 30_000;
/** Longer than a page is usually given to answer (`RESPONDS_WITHIN_MS`), within what a starting page is given. */
const SLOW_START_MS = 3000;

describe.each(TOPOLOGIES)('a popup that opens with an alert, in tab isolation, on $name', (topology) => {
  const rig = useHostileRig(topology, { callTimeoutMs: CALL_TIMEOUT_MS });
  const probe = usePageProbe(rig);

  it('holds neither its opener’s next call nor a neighbour on the same worker, and its opener answers it', async () => {
    const { server } = rig();
    const { first: opener, second: neighbour } = await rig().sameWorker();
    const popup = server.hold('<script>alert("popup says hi")</script><p>popup</p>', 'Popup', 'popup');
    const popupUrl = popup.url;
    const openerUrl = server.page(`<button onclick="setTimeout(() => window.open('${popupUrl}'), 300)">Open</button>`, 'Opener', 'opener');
    await opener.text('new_page', { url: openerUrl });
    await neighbour.text('new_page', { url: server.page('<p>neighbour</p>', 'Neighbour', 'neighbour') });
    await opener.text('click', { uid: uidOf(await opener.text('take_snapshot'), 'button', 'Open') });
    // The popup's page (and its alert) comes once the daemon follows the popup: it sees the dialog open. A popup whose
    // dialog opened before that is the next test's.
    await popup.arrived;
    await waitFor(() => rig().t.logged().find((line) => line.includes(`opened by a page of session ${opener.id} is now`)), 'the daemon to follow the popup');
    popup.release();
    await waitFor(() => rig().tabAt(popupUrl), 'the popup to open');
    await probe().blocked(popupUrl);

    // The opener's next call answers, telling it its popup waits on a dialog; the popup is not its page yet. The
    // daemon hears of the dialog on its own connection to Chrome, which may be a moment behind the test's probe: the
    // opener's calls answer meanwhile (`text` fails on any error), and one of them tells it.
    let lastListed = '';
    const next = await waitFor(
      async () => {
        lastListed = await opener.text('list_pages');
        return lastListed.includes(`(${popupUrl}) shows`) ? lastListed : undefined;
      },
      () => `the opener to be told of its popup's dialog; the last list_pages said:\n${lastListed}`,
    );
    expect(next).toContain(`(${popupUrl}) shows an alert dialog and waits for an answer`);
    expect(next).not.toContain('popup says hi');
    expect(pagesOf(next).ids).toHaveLength(1);
    // The neighbour on the same worker goes on as if nothing happened.
    expect(await neighbour.text('list_pages')).toContain('Neighbour');
    expect(await neighbour.text('take_snapshot')).toContain('neighbour');
    // The opener shares the popup's renderer, which the dialog blocks: its page calls are refused, not left hanging.
    const refused = await opener.call('take_snapshot');
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['tabmux/error']).toBe('dialog_open');
    expect(textOf(refused)).toContain('Call handle_dialog');
    expect(await neighbour.text('evaluate_script', { function: '() => document.title' })).toContain('Neighbour');

    // The opener answers the dialog; the popup becomes its page, and both run again.
    expect(await opener.text('handle_dialog', { action: 'accept' })).toContain('Successfully accepted an alert dialog');
    expect(await probe().responds(popupUrl)).toBe(true);
    const adopted = await opener.text('list_pages');
    expect(adopted).toContain('was opened by one of your pages and is now yours');
    expect(pagesOf(adopted).ids).toHaveLength(2);
    expect(await opener.text('take_snapshot')).toContain('Open');
    expect(await neighbour.text('list_pages')).not.toContain(popupUrl);
  });

  it('that is only slow to start neither holds its opener’s calls nor is told of as not responding', async () => {
    const { server } = rig();
    const { first: opener } = await rig().sameWorker();
    const popupUrl = server.page('<p>slow popup</p>', 'Slow popup', 'slow-popup');
    const openerUrl = server.page('<p>slow opener</p>', 'Slow opener', 'slow-opener');
    await opener.text('new_page', { url: openerUrl });
    // The opener opens a same-site popup, then keeps the renderer they share busy for longer than a page is usually
    // given to answer: the popup cannot answer the daemon meanwhile, as a page that starts on a loaded machine.
    await probe().run(openerUrl, `window.open('${popupUrl}'); setTimeout(() => { const end = Date.now() + ${SLOW_START_MS}; while (Date.now() < end); }, 0); 1`);
    await waitFor(() => rig().t.logged().find((line) => line.includes(`opened by a page of session ${opener.id} is now`)), 'the daemon to follow the popup');
    // The opener's call waits for their renderer instead of being refused (`text` fails on any error).
    const snapshot = await opener.text('take_snapshot');
    expect(snapshot).toContain('slow opener');
    expect(snapshot).not.toContain('does not respond');
    // The popup itself runs once it gets its turn on the renderer (which a loaded machine may take a while to give).
    await waitUntil(() => probe().responds(popupUrl), 'the popup to run once the opener’s script ended');
  });

  it('whose alert opened before the daemon could see it holds nobody either, and its opener closes it with handle_dialog', async () => {
    const { server } = rig();
    const { first: opener, second: neighbour } = await rig().sameWorker();
    const openerUrl = server.page('<p>opener</p>', 'Opener', 'opener-of-unseen');
    await opener.text('new_page', { url: openerUrl });
    await neighbour.text('new_page', { url: server.page('<p>neighbour</p>', 'Neighbour', 'neighbour') });
    // This thread, and the daemon on it, stands still until the popup's alert blocks it: the daemon's connection
    // never hears of that dialog, and cannot answer it.
    const popup = await openUnseenPopup(rig().port, openerUrl);
    try {
      await probe().blocked(popup.url);
      const told = await waitFor(async () => {
        const listed = await opener.text('list_pages');
        return listed.includes(`(${popup.url}) does not respond`) ? listed : undefined;
      }, 'the opener to be told its popup does not respond');
      expect(told).toContain('Call handle_dialog to close that page');
      expect(told).not.toContain('popup says hi');
      expect(pagesOf(told).ids).toHaveLength(1);
      expect(await neighbour.text('list_pages')).toContain('Neighbour');
      expect(await neighbour.text('take_snapshot')).toContain('neighbour');

      // The opener shares the popup's renderer: its page calls are refused, naming the way out.
      const refused = await opener.call('take_snapshot');
      expect(refused.isError).toBe(true);
      expect(refused._meta?.['tabmux/error']).toBe('dialog_open');
      expect(textOf(refused)).toContain(`a page one of your pages opened (${popup.url}) does not respond either`);
      expect(textOf(refused)).toContain('Call handle_dialog to close that page');

      // Nobody can answer that dialog through tabmux: handle_dialog closes the popup, and the opener runs again.
      const closed = await opener.text('handle_dialog', { action: 'accept' });
      expect(closed).toContain(`A page one of your pages opened (${popup.url}) did not respond`);
      expect(closed).toContain('it was closed instead');
      await rig().waitGone(popup.url, 'the popup to close');
      expect(await probe().responds(openerUrl)).toBe(true);
      expect(await opener.text('take_snapshot')).toContain('opener');
      expect(pagesOf(await opener.text('list_pages')).ids).toHaveLength(1);
      expect(await neighbour.text('take_snapshot')).toContain('neighbour');
    } finally {
      await popup.close();
    }
  });
});

describe('a page that shows an alert, with a window per session on a pool of workers', () => {
  const rig = useHostileRig({ name: 'a pool of workers', workers: 2 }, { callTimeoutMs: CALL_TIMEOUT_MS, isolation: 'window' });
  const probe = usePageProbe(rig);

  it('lets every other session open pages on any worker, and its own session answers the dialog', async () => {
    const { server } = rig();
    const { attacker: owner, victim: other } = await rig().pair();
    const sameWorker = await rig().session('same worker');
    expect(await rig().workerOf(sameWorker)).toBe(await rig().workerOf(owner));
    const alertUrl = server.page(`<button onclick="setTimeout(() => alert('one moment'), 200)">Alert</button>`, 'Alerting', 'alerting');
    await owner.text('new_page', { url: alertUrl });
    await owner.text('click', { uid: uidOf(await owner.text('take_snapshot'), 'button', 'Alert') });
    await probe().blocked(alertUrl);

    // Opening a page in a window of its own maps the worker's tabs; the alerting tab is left alone there.
    const otherUrl = server.page('<p>other</p>', 'Other', 'other');
    expect(await other.text('new_page', { url: otherUrl })).toContain(otherUrl);
    const sameUrl = server.page('<p>same</p>', 'Same', 'same');
    expect(await sameWorker.text('new_page', { url: sameUrl })).toContain(sameUrl);
    expect(await other.text('take_snapshot')).toContain('other');

    // The dialog is still its page's, and its session answers it.
    expect(await probe().responds(alertUrl)).toBe(false);
    expect(await owner.text('handle_dialog', { action: 'dismiss' })).toContain('Successfully dismissed the dialog');
    expect(await probe().responds(alertUrl)).toBe(true);
    expect(await owner.text('take_snapshot')).toContain('Alert');
  });
});
