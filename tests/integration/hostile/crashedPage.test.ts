import { describe, expect, it } from 'vitest';
import type { TabInfo } from '../../../shared/model.js';
import { textOf } from '../../../shared/toolResult.js';
import { usePageProbe } from '../../helpers/pageProbe.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';
import { waitFor } from '../../helpers/waitFor.js';
import { uidOf } from '../../helpers/daemonFixture.js';

/**
 * A page whose renderer process ends (a crash, out of memory, killed) holds every command sent to it until it loads
 * again. Neither the agent nor its worker may wait on it for a call's whole time limit: the worker would be replaced
 * under every session it serves. The call limit here is far above what the calls take, so a call that answers was not
 * saved by its time limit. The test crashes pages over its own connection to Chrome, never the daemon's.
 */
const CALL_TIMEOUT_MS = 90_000;

/** An agent's script that never settles: only the page's end can end the call before its time limit. */
const WAITS_FOREVER = "() => { document.title = 'waiting'; return new Promise(() => {}); }";

describe.each(TOPOLOGIES)('a page whose renderer crashes, on $name', (topology) => {
  const rig = useHostileRig(topology, { callTimeoutMs: CALL_TIMEOUT_MS });
  const probe = usePageProbe(rig);

  const tabsOf = async (): Promise<TabInfo[]> => (await rig().control.call('tabmux/tabs.list')).tabs;

  it('during a call is loaded again, and the call ends with a note; the worker stays and its neighbour is served', async () => {
    const { server, t } = rig();
    const { first: agent, second: neighbour } = await rig().sameWorker();
    const url = server.page('<h1>Fragile</h1><input aria-label="Name">', 'Fragile', 'fragile');
    await agent.text('new_page', { url });
    await neighbour.text('new_page', { url: server.page('<h1>Calm</h1>', 'Calm', 'calm') });
    const workers = (await rig().status()).workers.map((worker) => worker.pid);
    const waiting = agent.call('evaluate_script', { function: WAITS_FOREVER });
    await waitFor(async () => ((await rig().chromeTabs()).some((tab) => tab.url === url && tab.title === 'waiting') ? true : undefined), 'the script to run');
    await probe().crash(url);
    const text = textOf(await waiting);
    expect(text).toContain(`crashed while this evaluate_script call waited on it: its renderer process crashed. tabmux loaded ${url} in it again`);
    expect(text).not.toContain('did not finish within');
    // The page runs again, loaded afresh, and nobody's worker was replaced for it.
    const snapshot = await agent.text('take_snapshot');
    expect(snapshot).toContain('Fragile');
    expect(snapshot).not.toContain('crashed');
    const calm = await neighbour.text('take_snapshot');
    expect(calm).toContain('Calm');
    expect(calm).not.toContain('may have new ids');
    expect((await rig().status()).workers.map((worker) => worker.pid)).toEqual(workers);
    expect(t.logged().some((line) => line.includes(`session ${agent.id}`) && line.includes(`crashed during evaluate_script (crashed); loaded ${url}`))).toBe(true);
  });

  it('between calls is refused at once, named in tabmux pages, until navigate_page loads it again', async () => {
    const { server } = rig();
    const { first: agent, second: neighbour } = await rig().sameWorker();
    const url = server.page('<h1>Broken</h1>', 'Broken', 'broken');
    await agent.text('new_page', { url });
    const heading = uidOf(await agent.text('take_snapshot'), 'heading', 'Broken');
    await neighbour.text('new_page', { url: server.page('<h1>Steady</h1>', 'Steady', 'steady') });
    await probe().crash(url);
    const crashed = await waitFor(async () => (await tabsOf()).find((tab) => tab.url === url && tab.crashed !== undefined), 'tabmux pages to show the crash');
    expect(crashed).toMatchObject({ crashed: 'crashed', owner: agent.id });
    for (const [tool, args] of [
      ['take_snapshot', {}],
      ['click', { uid: heading }],
      ['evaluate_script', { function: '() => 1' }],
    ] as const) {
      const refused = await agent.call(tool, args);
      expect(refused.isError, tool).toBe(true);
      expect(refused._meta?.['tabmux/error']).toBe('page_crashed');
      expect(textOf(refused)).toContain(`your page ${crashed.ownerPageId} (${url}) crashed: its renderer process crashed, and nothing on it can answer until it loads again. Load it again with navigate_page`);
    }
    expect(await neighbour.text('take_snapshot')).toContain('Steady');
    expect(await agent.text('list_pages')).toContain(url);
    expect(await agent.text('navigate_page', { type: 'reload' })).toContain('Successfully reloaded');
    expect(await agent.text('take_snapshot')).toContain('Broken');
    expect((await tabsOf()).find((tab) => tab.url === url)?.crashed).toBeUndefined();
  });
});
