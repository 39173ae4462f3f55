import { describe, expect, it } from 'vitest';
import { checkDaemon } from '../../../electron/core/doctor/doctorChecks.js';
import { resolvePaths } from '../../../electron/core/platform/paths.js';
import { OVERRUN_GRACE_MS } from '../../../electron/core/router/Worker.js';
import { textOf } from '../../../shared/toolResult.js';
import { useHostileRig } from '../../helpers/hostileRig.js';
import { waitFor, waitUntil } from '../../helpers/waitFor.js';

/**
 * Every command of every session goes through Chrome's browser process; when it stops answering (here it is paused
 * with SIGSTOP, as a page flooding it or a machine out of CPU would hold it), every call waits on it. The daemon asks
 * the browser itself while calls wait, shows it in its status, tells the calls that run out of time why, and serves
 * again once the browser answers. The call limit is short so the calls end while the browser is paused.
 */
const CALL_TIMEOUT_MS = 12_000;
const STUCK_PAGE_MS = 3000;

describe('a browser whose own process stops answering', () => {
  const rig = useHostileRig({ name: 'a pool of workers', workers: 2 }, { callTimeoutMs: CALL_TIMEOUT_MS, stuckPageMs: STUCK_PAGE_MS });

  it("is shown in the status and told to each call that ran out of time on it, no page or worker blamed; calls are served again once it answers", async () => {
    const { server, t } = rig();
    const { attacker: agent, victim: neighbour } = await rig().pair();
    await agent.text('new_page', { url: server.page('<h1>One</h1>', 'One', 'one') });
    await neighbour.text('new_page', { url: server.page('<h1>Two</h1>', 'Two', 'two') });
    const pid = (await rig().status()).chrome.pid;
    if (pid === null) {
      throw new Error('the daemon reports no Chrome pid');
    }
    expect((await rig().status()).browserSilentSince).toBeNull();
    const pausedAt = Date.now();
    process.kill(pid, 'SIGSTOP');
    try {
      const calls = Promise.all([agent.call('take_snapshot'), neighbour.call('take_snapshot')]);
      const silentSince = await waitFor(async () => (await rig().status()).browserSilentSince ?? undefined, 'the daemon to report the browser not answering');
      expect(silentSince).toBeGreaterThanOrEqual(pausedAt);
      for (const result of await calls) {
        expect(result.isError).toBe(true);
        expect(result._meta?.['tabmux/error']).toBe('timeout');
        expect(textOf(result)).toContain(`did not finish within ${CALL_TIMEOUT_MS} ms`);
        expect(textOf(result)).toContain('The browser itself has not answered tabmux for');
        // The pages were not why: neither is said to have stopped responding.
        expect(textOf(result)).not.toContain('stopped responding');
      }
      const doctor = await checkDaemon(resolvePaths({ TABMUX_HOME: t.home }), 'default');
      expect(doctor.status).toBe('warn');
      expect(doctor.message).toContain('its browser has not answered for');
      expect(doctor.fix).toContain('tabmux daemon stop --profile default');
      // Paused past the time a worker whose call was given up on gets to end it before it is replaced.
      await new Promise((resolve) => setTimeout(resolve, 3 * OVERRUN_GRACE_MS));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitUntil(async () => (await rig().status()).browserSilentSince === null, 'the daemon to see the browser answering again');
    expect((await checkDaemon(resolvePaths({ TABMUX_HOME: t.home }), 'default')).status).toBe('ok');
    // The workers waited on the browser, they were not stuck themselves: they were kept, and the pages keep their ids.
    for (const [session, heading] of [
      [agent, 'One'],
      [neighbour, 'Two'],
    ] as const) {
      const text = await session.text('take_snapshot');
      expect(text).toContain(heading);
      expect(text).not.toContain('may have new ids');
    }
    expect(t.warnings().some((line) => line.includes('replacing upstream worker'))).toBe(false);
    expect(t.logged().some((line) => line.includes('the browser has not answered for'))).toBe(true);
    expect(t.logged().some((line) => line.includes('the browser answers again'))).toBe(true);
    expect(t.logged().some((line) => line.includes('did not respond during'))).toBe(false);
  });

  it('leaves a call that ends in time as it is, and reports nothing while the browser answers', async () => {
    const { server } = rig();
    const agent = await rig().session('calm');
    await agent.text('new_page', { url: server.page('<h1>Calm</h1>', 'Calm', 'calm') });
    expect(await agent.text('take_snapshot')).toContain('Calm');
    expect((await rig().status()).browserSilentSince).toBeNull();
  });
});
