import { describe, expect, it } from 'vitest';
import { useHostileRig } from '../../helpers/hostileRig.js';
import { waitFor } from '../../helpers/waitFor.js';

/** Low enough that a flood passes it within seconds; far above what a worker holds for calm pages. */
const WORKER_MEMORY_MB = 400;

/** A page that logs a MiB-long message twenty times every 10 ms: upstream keeps what pages log. */
const FLOOD = "<h1>Flood</h1><script>const big = 'x'.repeat(1 << 20); setInterval(() => { for (let i = 0; i < 20; i++) console.log(big + i); }, 10);</script>";

/**
 * A page that logs large messages without end grows the upstream worker following it by tens of MiB a second, until
 * V8 ends that worker, and every call on it. The daemon reads each worker's memory; one past the profile's limit has
 * its sessions moved apart and is replaced between calls, so no call fails for it and the sessions no longer share a
 * worker with each other.
 */
describe('a page that floods its console', () => {
  const rig = useHostileRig({ name: 'a pool of workers', workers: 2 }, { workerMemoryMb: WORKER_MEMORY_MB, callTimeoutMs: 60_000 });

  it('has its worker relieved: sessions that shared it are kept apart, and the neighbour\'s calls never fail', { timeout: 120_000 }, async () => {
    const { server, t, control } = rig();
    const flooder = await rig().session('flooder');
    const gone = await rig().session('gone');
    const neighbour = await rig().session('neighbour');
    expect(await rig().workerOf(neighbour)).toBe(await rig().workerOf(flooder));
    // The other worker is nobody's now: there is room to move apart.
    await control.call('tabmux/session.close', { session: gone.id });
    await neighbour.text('new_page', { url: server.page('<h1>Calm</h1>', 'Calm', 'calm') });
    await flooder.text('new_page', { url: server.page(FLOOD, 'Flood', 'flood') });
    const shared = await rig().workerOf(flooder);

    const told: string[] = [];
    const snapshot = async (): Promise<void> => {
      // `text` throws on an error result: every one of the neighbour's calls is answered.
      const text = await neighbour.text('take_snapshot');
      expect(text).toContain('Calm');
      if (text.startsWith('Note:')) {
        told.push(text.slice(0, text.indexOf('\n## ')));
      }
    };
    await waitFor(
      async () => {
        await snapshot();
        return (await rig().workerOf(neighbour)) !== (await rig().workerOf(flooder)) && told.length > 0 ? true : undefined;
      },
      'the neighbour to move apart from the flooding page',
      60_000,
    );
    expect(t.logged().some((line) => line.includes(`upstream worker ${shared} (pid`) && line.includes(`over the profile's limit of ${WORKER_MEMORY_MB} MiB`))).toBe(true);
    // What the daemon read of its workers' memory is shown with them (status, the dashboard's debug view).
    await waitFor(async () => ((await rig().status()).workers.some((worker) => typeof worker.residentMb === 'number') ? true : undefined), 'a worker with its memory shown');
    expect(told[0]).toMatch(/your calls moved to another upstream worker, since the one they ran on had grown to \d+ MiB|tabmux replaced the upstream worker your calls run on: it had grown to \d+ MiB/);

    // While the flood goes on and the flooder keeps calling, they never share a worker again.
    for (let round = 0; round < 5; round++) {
      await flooder.call('take_snapshot');
      await snapshot();
      expect(await rig().workerOf(neighbour)).not.toBe(await rig().workerOf(flooder));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  });
});
