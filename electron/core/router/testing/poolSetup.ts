import type { WorkerInfo } from '../../../../shared/model.js';
import { Logger } from '../../platform/Logger.js';
import type { Worker } from '../Worker.js';
import { WorkerPool, type WorkerPoolOptions } from '../WorkerPool.js';
import { FakeBrowser, FakeUpstream } from './FakeUpstream.js';

/** A pool of three workers on fake upstreams sharing one fake browser; what it started, prepared and told. */
export function poolSetup(overrides: Partial<WorkerPoolOptions> = {}) {
  const browser = new FakeBrowser();
  const started: FakeUpstream[] = [];
  const prepared: number[] = [];
  let workerEvents = 0;
  const seen: WorkerInfo[][] = [];
  const pool = new WorkerPool({
    size: 3,
    callTimeoutMs: 5_000,
    workerIdleMs: 1_000,
    logger: Logger.silent(),
    startUpstream: () => {
      const upstream = new FakeUpstream(browser);
      started.push(upstream);
      return Promise.resolve(upstream);
    },
    isPaused: () => false,
    prepare: (worker: Worker) => {
      prepared.push(worker.index);
      return Promise.resolve();
    },
    onQueueChange: () => undefined,
    onWorkersChange: () => {
      workerEvents++;
      seen.push(pool.infos());
    },
    ...overrides,
  });
  return { pool, started, prepared, workerEvents: () => workerEvents, seen };
}

export /** Whether a fake upstream has been closed (by now: its `closed` settles within a turn of the event loop). */
async function isUpstreamClosed(upstream: FakeUpstream): Promise<boolean> {
  let closed = false;
  void upstream.closed.then(() => (closed = true));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return closed;
}
