import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startTestDaemon, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';

const AGENTS = 4;
const ROUNDS = 6;
const CALLS_PER_AGENT = 400;
/**
 * How much the heap may grow from the second round to the last: above what stays as calls go on without a leak (the
 * machine code V8 compiles for more of the daemon's functions, under 0.5 MiB over these rounds), below what keeping
 * ~330 bytes per call would add over the 6400 calls in between.
 */
const MAX_GROWTH_MIB = 2;

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ workers: 2 });
});

afterAll(async () => {
  await t.stop();
});

/** A full collection, then the heap in use: what stays alive, not what is waiting to be collected. */
function liveHeapMib(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

describe('memory over many calls', () => {
  it(`${AGENTS} agents' calls and sessions that come and go leave the daemon's heap where it was`, async () => {
    const agents: BoundSession[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const agent = await t.session(`steady-${i}`);
      await agent.text('new_page', { url: html('<button>a</button><p>text</p>'.repeat(100), `steady-${i}`) });
      agents.push(agent);
    }
    const heaps: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        agents.map(async (agent) => {
          for (let n = 0; n < CALLS_PER_AGENT; n++) {
            await agent.text(n % 10 === 0 ? 'take_snapshot' : 'list_pages');
          }
        }),
      );
      // A session that comes, works and is closed, as agents that connect for one task do.
      const passing = await t.session(`passing-${round}`);
      await passing.text('new_page', { url: html('<button>once</button>', `passing-${round}`) });
      await passing.text('take_snapshot');
      await passing.client.call('tabmux/session.close', { session: passing.id });
      passing.client.close();
      heaps.push(liveHeapMib());
    }
    const last = heaps[heaps.length - 1];
    process.stdout.write(`memory: live heap after each round of ${AGENTS * CALLS_PER_AGENT} calls: ${heaps.map((mib) => mib.toFixed(2)).join(', ')} MiB\n`);
    // The first round is left out of the comparison: it warms up what every later call reuses.
    expect(last! - heaps[1]!, `live heap per round: ${heaps.join(', ')}`).toBeLessThan(MAX_GROWTH_MIB);
    const status = await agents[0]!.client.call('tabmux/status');
    expect(status.sessions.map((session) => session.label).filter((label) => label?.startsWith('passing-'))).toEqual([]);
  }, 300_000);
});
