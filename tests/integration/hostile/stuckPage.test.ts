import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import { usePageProbe } from '../../helpers/pageProbe.js';
import type { BoundSession } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';

/**
 * A page whose script never yields holds every call on it, and upstream's worker with it, until the call's time limit.
 * tabmux asks the page a constant on its own connection while a call waits on it, and ends the script of a page that
 * answered nothing for long enough; the call then goes on and answers. The call limit here is far above what the
 * calls take, so a call that answers was not saved by its time limit, and a short `stuckPageMs` keeps the tests quick.
 * Whether the page is stuck is asked of Chrome over the test's own connection, never the daemon.
 */
const CALL_TIMEOUT_MS = 60_000;
const STUCK_PAGE_MS = 3000;
/** The agent's own script's limit, in the test that it is left to run till then. */
const EVALUATE_TIMEOUT_MS = 6000;
const SPIN = 'setTimeout(() => { for (;;) {} }, 0)';

const NOTE = 'stopped responding while this call waited on it';

describe.each(TOPOLOGIES)('a page whose script never yields, on $name', (topology) => {
  const rig = useHostileRig(topology, { callTimeoutMs: CALL_TIMEOUT_MS, stuckPageMs: STUCK_PAGE_MS, toolTimeoutsMs: { evaluate_script: EVALUATE_TIMEOUT_MS } });
  const probe = usePageProbe(rig);

  it('has its script ended during the call, which answers with a note; the neighbour is served and the page stays usable', async () => {
    const { server, t } = rig();
    const { attacker: agent, victim: neighbour } = await rig().pair();
    const url = server.page('<h1>Spinner</h1><p>spins</p>', 'Spinner', 'spinner');
    await agent.text('new_page', { url });
    await neighbour.text('new_page', { url: server.page('<h1>Calm</h1>', 'Calm', 'calm') });
    await probe().run(url, SPIN);
    await probe().blocked(url);
    const snapshot = agent.call('take_snapshot');
    expect(await neighbour.text('take_snapshot')).toContain('Calm');
    const result = await snapshot;
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain(NOTE);
    expect(text).toContain('Spinner');
    // The page is open and runs script again; the next call has nothing to tell.
    expect(await probe().responds(url)).toBe(true);
    const next = await agent.text('take_snapshot');
    expect(next).toContain('Spinner');
    expect(next).not.toContain(NOTE);
    expect(t.logged().some((line) => line.includes(`session ${agent.id}`) && line.includes('did not respond during take_snapshot'))).toBe(true);
  });

  it("holds no neighbour's screenshot past the watch: screenshots take the front tab one at a time", async () => {
    const { server } = rig();
    const { attacker: agent, victim: neighbour } = await rig().pair();
    const url = server.page('<h1>Frozen</h1>', 'Frozen', 'frozen');
    await agent.text('new_page', { url });
    await neighbour.text('new_page', { url: server.page('<h1>Picture</h1>', 'Picture', 'picture') });
    await probe().run(url, SPIN);
    await probe().blocked(url);
    const stuck = agent.call('take_screenshot');
    // Asked while the agent's screenshot waits for a frame its page cannot render; answered within the neighbour's own
    // limit only because the agent's call does not keep the front tab until its limit.
    const picture = await neighbour.call('take_screenshot');
    expect(picture.isError, textOf(picture)).toBeFalsy();
    expect(picture.content.some((part) => part.type === 'image')).toBe(true);
    expect(textOf(await stuck)).toContain(NOTE);
  });

  it('leaves a page that is slow but answers: a wait longer than the limit is not cut short', async () => {
    const { server } = rig();
    const agent = await rig().session('waiter');
    const url = server.page(`<h1>Later</h1><script>setTimeout(() => { document.body.append('Ready now'); }, ${STUCK_PAGE_MS + 2000});</script>`, 'Later', 'later');
    await agent.text('new_page', { url });
    const text = await agent.text('wait_for', { text: ['Ready now'], timeout: 30_000 });
    expect(text).toContain('Ready now');
    expect(text).not.toContain(NOTE);
  });

  it("leaves the agent's own script to run until the call's time limit", async () => {
    const { server } = rig();
    const agent = await rig().session('own script');
    const url = server.page('<h1>Mine</h1>', 'Mine', 'mine');
    await agent.text('new_page', { url });
    const result = await agent.call('evaluate_script', { function: '() => { for (;;) {} }' });
    expect(result.isError).toBe(true);
    expect(result._meta?.['tabmux/error']).toBe('timeout');
    expect(textOf(result)).not.toContain(NOTE);
    expect(await agent.text('take_snapshot')).toContain('Mine');
  });
});

describe('a page whose script never yields, resized by its agent', () => {
  const rig = useHostileRig(TOPOLOGIES[0] ?? { name: 'one worker', workers: 1 }, { callTimeoutMs: CALL_TIMEOUT_MS, stuckPageMs: STUCK_PAGE_MS });
  const probe = usePageProbe(rig);

  it('has its script ended: the viewport is emulated in the page, and its neighbour on the worker is not held', async () => {
    const { server } = rig();
    const agent = await rig().session('resizer');
    const neighbour = await rig().session('neighbour');
    const url = server.page('<h1>Resized</h1>', 'Resized', 'resized');
    await agent.text('new_page', { url });
    await neighbour.text('new_page', { url: server.page('<h1>Beside</h1>', 'Beside', 'beside') });
    await probe().run(url, SPIN);
    await probe().blocked(url);
    const resizing = agent.call('resize_page', { width: 640, height: 480 });
    expect(await neighbour.text('take_snapshot')).toContain('Beside');
    const text = textOf(await resizing);
    expect(text).toContain(NOTE);
    expect(text).toContain("Resized this page's viewport to 640x480 CSS pixels");
    expect(await agent.text('evaluate_script', { function: '() => innerWidth' })).toContain('640');
  });
});

describe('a page whose script never yields, slowed down by the agent', () => {
  const rig = useHostileRig(TOPOLOGIES[0] ?? { name: 'one worker', workers: 1 }, { callTimeoutMs: CALL_TIMEOUT_MS, stuckPageMs: STUCK_PAGE_MS });
  const probe = usePageProbe(rig);

  /** How long the page had been silent when its script was ended, as the note says, in seconds. */
  async function silentSecondsOfStuckCall(agent: BoundSession, url: string): Promise<number> {
    await probe().run(url, SPIN);
    await probe().blocked(url);
    const text = await agent.text('take_snapshot');
    const seconds = /had run for at least (\d+) s without a break/.exec(text)?.[1];
    expect(seconds, text).toBeDefined();
    return Number(seconds);
  }

  it('is given as many times longer as the CPU slowdown it asked for, and the usual time again once it is lifted', async () => {
    const { server } = rig();
    const agent = await rig().session('throttled');
    const url = server.page('<h1>Slowed</h1>', 'Slowed', 'slowed');
    await agent.text('new_page', { url });
    const rate = 4;
    await agent.text('emulate', { cpuThrottlingRate: rate });
    // Two thirds of the limit silent before the script is ended: 8 s at 4 times 3 s, 2 s without a slowdown.
    expect(await silentSecondsOfStuckCall(agent, url)).toBeGreaterThanOrEqual(Math.floor(((2 * STUCK_PAGE_MS) / 3) * rate / 1000));
    await agent.text('emulate', {});
    expect(await silentSecondsOfStuckCall(agent, url)).toBeLessThan(Math.floor(((2 * STUCK_PAGE_MS) / 3) * rate / 1000));
  });
});
