import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { ProfileConfig } from '../../electron/core/profile/ProfileStore.js';
import type { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import type { DaemonStatus } from '../../shared/model.js';
import { startTestDaemon, type BoundSession, type TestDaemon } from './daemonFixture.js';
import { HostileServer } from './hostileServer.js';
import { waitFor } from './waitFor.js';

/** Every hostile test runs on one upstream worker (sessions share its page ids and its state) and on a pool. */
export interface Topology {
  name: string;
  workers: number;
}

export const TOPOLOGIES: readonly Topology[] = [
  { name: 'one worker', workers: 1 },
  { name: 'a pool of workers', workers: 2 },
];

/** A page target as Chrome itself lists it on its DevTools port: the ground truth about which tabs exist. */
export interface ChromeTab {
  id: string;
  type: string;
  url: string;
  title: string;
}

export interface HostileRig {
  t: TestDaemon;
  server: HostileServer;
  /** A connection that said hello and is bound to nothing: a person at the dashboard, or a script. */
  control: DaemonClient;
  /** The browser's DevTools port, from `tabmux/status`. */
  port: number;
  /** A new bound session, closed after the test that made it. */
  session: (label?: string) => Promise<BoundSession>;
  /** Two sessions for an attacker and its victim; on a pool they are on different workers. */
  pair: () => Promise<{ attacker: BoundSession; victim: BoundSession }>;
  /** Two sessions on the same worker (on a pool, with a filler session on the other). */
  sameWorker: () => Promise<{ first: BoundSession; second: BoundSession }>;
  status: () => Promise<DaemonStatus>;
  workerOf: (session: BoundSession) => Promise<number>;
  /** Page targets from Chrome's own `/json/list`, fetched by the test process, never from the daemon. */
  chromeTabs: () => Promise<ChromeTab[]>;
  /** The tab Chrome shows at exactly this URL, if any. */
  tabAt: (url: string) => Promise<ChromeTab | undefined>;
  /** Waits until Chrome has no tab at this URL; fails naming it otherwise. */
  waitGone: (url: string, what: string) => Promise<void>;
}

function isChromeTab(value: unknown): value is ChromeTab {
  return (
    typeof value === 'object' &&
    value !== null &&
    'id' in value &&
    typeof value.id === 'string' &&
    'type' in value &&
    typeof value.type === 'string' &&
    'url' in value &&
    typeof value.url === 'string' &&
    'title' in value &&
    typeof value.title === 'string'
  );
}

/**
 * One daemon (real Chromium, real upstream) and one hostile web server per `describe`, shared by its tests. Sessions
 * a test makes are closed after it, so each test starts with every worker free and the least-loaded pinning is
 * predictable: the first new session goes to worker 0, the next to worker 1.
 */
export function useHostileRig(topology: Topology, config: ProfileConfig = {}): () => HostileRig {
  let rig: HostileRig | undefined;
  const made: BoundSession[] = [];

  beforeAll(async () => {
    const t = await startTestDaemon({ workers: topology.workers, ...config });
    const server = await HostileServer.start();
    const control = await t.connect();
    const initial = await control.call('tabmux/status');
    const port = initial.chrome.port;
    if (port === null) {
      throw new Error('the daemon reports no DevTools port');
    }
    const status = (): Promise<DaemonStatus> => control.call('tabmux/status');
    const workerOf = async (session: BoundSession): Promise<number> => {
      const found = (await status()).sessions.find((s) => s.id === session.id);
      if (!found) {
        throw new Error(`session ${session.id} is not in the daemon's status`);
      }
      return found.worker;
    };
    const session = async (label?: string): Promise<BoundSession> => {
      const created = await t.session(label);
      made.push(created);
      return created;
    };
    const chromeTabs = async (): Promise<ChromeTab[]> => {
      const listed: unknown = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
      return Array.isArray(listed) ? listed.filter(isChromeTab).filter((tab) => tab.type === 'page') : [];
    };
    const tabAt = async (url: string): Promise<ChromeTab | undefined> => (await chromeTabs()).find((tab) => tab.url === url);
    rig = {
      t,
      server,
      control,
      port,
      session,
      status,
      workerOf,
      chromeTabs,
      tabAt,
      waitGone: async (url, what) => {
        await waitFor(async () => ((await tabAt(url)) === undefined ? true : undefined), what, 10_000);
      },
      pair: async () => {
        const attacker = await session('attacker');
        const victim = await session('victim');
        if (topology.workers > 1) {
          expect(await workerOf(attacker)).not.toBe(await workerOf(victim));
        }
        return { attacker, victim };
      },
      sameWorker: async () => {
        const first = await session('first');
        const target = await workerOf(first);
        for (let i = 0; i < topology.workers; i++) {
          const next = await session(i === topology.workers - 1 ? 'second' : 'filler');
          if ((await workerOf(next)) === target) {
            return { first, second: next };
          }
        }
        throw new Error('no second session landed on the first one’s worker');
      },
    };
  });

  afterEach(async () => {
    const control = rig?.control;
    for (const session of made.splice(0)) {
      await control?.call('tabmux/session.close', { session: session.id }).catch(() => undefined);
    }
  });

  afterAll(async () => {
    await rig?.server.close();
    await rig?.t.stop();
  });

  return () => {
    if (!rig) {
      throw new Error('the hostile rig is used before its daemon started');
    }
    return rig;
  };
}
