import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../shared/activity.js';
import { profileActivityDir, resolvePaths } from '../../../electron/core/platform/paths.js';
import { uidOf } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig, type HostileRig } from '../../helpers/hostileRig.js';

/**
 * Secrets in every form a URL can carry them, and the text of a page's dialogs, stay out of the activity log: its
 * arguments, its answer summaries and its page URLs. Every secret holds a random marker, so whatever its encoding
 * (percent-encoded, form-encoded, decoded) the marker shows whether it reached the log's files, which are read from
 * the disk. Chrome's own tab list shows the secrets were really in the page's URL.
 */

function marker(name: string): string {
  return `${name}${Math.random().toString(36).slice(2, 10)}Z`;
}

/** Every line of the profile's activity log files, as the disk holds them. */
function logFiles(rig: HostileRig): string {
  const dir = profileActivityDir(resolvePaths({ TABMUX_HOME: rig.t.home }), 'default');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('');
}

describe.each(TOPOLOGIES)('secrets in the activity log, on $name', (topology) => {
  const rig = useHostileRig(topology);

  it('keeps URL passwords, percent-encoded query tokens and fragment tokens out of arguments, summaries and page URLs', async () => {
    const { server } = rig();
    const s = await rig().session('oauth client');
    const password = marker('pw');
    const queryToken = marker('qt');
    const accessToken = marker('at');
    const idToken = marker('it');
    // The page shows its own address, as a callback page that prints where it is would.
    const page = new URL(server.page('<p id="here"></p><script>document.getElementById("here").textContent = "You are at " + location.href;</script>', 'Callback', 'callback'));
    const url = `http://agent:p%40${password}@${page.host}${page.pathname}?access_token=a%2F${queryToken}%20b&state=ok#access_token=${accessToken}&token_type=Bearer&id_token=x.${idToken}.y`;
    await s.text('navigate_page', { url });
    const snapshot = await s.text('take_snapshot');
    expect(snapshot).toContain(accessToken);
    await s.text('new_page', { url: `${page.origin}${page.pathname}#/done?code=${accessToken}` });
    const inChrome = (await rig().chromeTabs()).map((tab) => tab.url).join('\n');
    expect(inChrome).toContain(`access_token=a%2F${queryToken}%20b`);
    expect(inChrome).toContain(`id_token=x.${idToken}.y`);

    const { entries } = await rig().control.call('tabmux/log.query', { session: s.id });
    const written = logFiles(rig());
    for (const secret of [password, queryToken, accessToken, idToken]) {
      expect(written).not.toContain(secret);
    }
    expect(entries.map((entry) => entry.tool)).toEqual(['navigate_page', 'take_snapshot', 'new_page']);
    const [navigated, snapshotted] = entries;
    expect(navigated?.args['url']).toBe(`http://redacted:redacted@${page.host}${page.pathname}?access_token=[redacted]&state=ok#access_token=[redacted]&token_type=[redacted]&id_token=[redacted]`);
    expect(navigated?.summary).toContain(`${page.host}${page.pathname}?access_token=[redacted]&state=ok#access_token=[redacted]`);
    expect(navigated?.pageAfter?.url).toContain(`${page.pathname}?access_token=[redacted]`);
    expect(snapshotted?.summary).toContain('[redacted]');
  });

  it('keeps a prompt answer given to evaluate_script and the text of a page’s dialogs out of the log', async () => {
    const { server } = rig();
    const s = await rig().session('dialogs');
    const pin = marker('pin');
    const asked = marker('ask');
    const shown = marker('dlg');
    await s.text('new_page', { url: server.page(`<button onclick="alert('Your one-time code is ${shown}')">Show code</button><script>window.askPin = () => prompt('PIN for ${asked}?');</script>`, 'Dialogs', 'dialogs') });
    const answered = await s.text('evaluate_script', { function: '() => window.askPin()', dialogAction: `pin ${pin}` });
    expect(answered).toContain(pin);
    const clicked = await s.call('click', { uid: uidOf(await s.text('take_snapshot'), 'button', 'Show code') });
    expect(JSON.stringify(clicked)).toContain(shown);
    expect(await s.text('handle_dialog', { action: 'accept' })).toContain('accepted');

    const { entries } = await rig().control.call('tabmux/log.query', { session: s.id });
    const written = logFiles(rig());
    for (const secret of [pin, asked, shown]) {
      expect(written).not.toContain(secret);
    }
    const byTool = (tool: string): ActivityEntry | undefined => entries.find((entry) => entry.tool === tool);
    expect(byTool('evaluate_script')).toMatchObject({ args: { dialogAction: '[redacted]' }, redacted: ['dialogAction'] });
    expect(byTool('click')?.summary).toContain('# Open dialog\n[redacted]');
  });
});
