import { join } from 'node:path';
import type { BenchContext } from '../lib/BenchContext.js';
import { makeBenchHome } from '../lib/benchHome.js';
import { DaemonChild } from '../lib/DaemonChild.js';
import { idleNodeRss, packageFile } from '../lib/idleRss.js';
import { rssKib } from '../lib/procStatus.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { summarize, type Summary } from '../lib/stats.js';

const SESSIONS = 100;
const READINGS = 5;

/** A few readings apart, so a momentary allocation spike is not taken for the resident size. */
async function steadyRss(pid: number): Promise<Summary> {
  const readings: number[] = [];
  for (let index = 0; index < READINGS; index++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const kib = await rssKib(pid);
    if (kib === undefined) {
      throw new Error(`process ${pid} is gone (or /proc is not available)`);
    }
    readings.push(kib / 1024);
  }
  return summarize(readings);
}

async function rssOfAll(pids: readonly number[]): Promise<Summary> {
  const values: number[] = [];
  for (const pid of pids) {
    const kib = await rssKib(pid);
    if (kib !== undefined) {
      values.push(kib / 1024);
    }
  }
  return summarize(values);
}

/**
 * Daemon memory with 100 idle sessions, read from /proc for a `tabmux daemon run` process of its own (Chrome and
 * the workers are other processes and not counted), and the resident size of each upstream worker next to a
 * directly driven child that did the same work.
 */
export async function memory(context: BenchContext): Promise<Row[]> {
  context.log(`memory: daemon RSS with ${SESSIONS} idle sessions; RSS per worker`);
  const daemon = await DaemonChild.start(context.teardown, makeBenchHome(context.teardown));
  const before = await steadyRss(daemon.pid);
  for (let index = 0; index < SESSIONS; index++) {
    await daemon.client.call('tabmux/session.create', { label: `idle-${index}` });
  }
  const after = await steadyRss(daemon.pid);
  const perSessionKib = ((after.median - before.median) * 1024) / SESSIONS;

  const bare = await idleNodeRss([]);
  const schemas = await idleNodeRss([packageFile(join('dist', 'shared', 'protocol.js'))]);
  const cdp = await idleNodeRss(['puppeteer-core/internal/cdp/Connection.js', 'puppeteer-core/internal/node/NodeWebSocketTransport.js']);
  const both = await idleNodeRss([packageFile(join('dist', 'shared', 'protocol.js')), 'puppeteer-core/internal/cdp/Connection.js', 'puppeteer-core/internal/node/NodeWebSocketTransport.js']);
  const why =
    `A bare Node process idles at ${bare.median.toFixed(1)} MiB on this machine. Two libraries the daemon is built on cost most of the rest, each read alone the same way: ` +
    `the control protocol's schemas (zod) +${(schemas.median - bare.median).toFixed(1)} MiB, puppeteer-core's CDP connection (the daemon's own view of the browser) +${(cdp.median - bare.median).toFixed(1)} MiB; ` +
    `with both loaded Node idles at ${both.median.toFixed(1)} MiB, and the daemon's own code, the router and its state add ${(before.median - both.median).toFixed(1)} MiB to that. Under 50 MiB would take a daemon without one of the two.`;
  const workerPids = context.tabmux.workerPids();
  const directPids = context.direct.childPids();
  const workers = await rssOfAll(workerPids);
  const children = await rssOfAll(directPids);
  return [
    {
      name: 'daemon RSS, idle',
      figure: before,
      baseline: null,
      unit: 'MiB',
      ratio: null,
      goal: { kind: 'under', limit: 50 },
      note: `VmRSS of a separate \`tabmux daemon run\` process (Chrome and workers excluded) once it is ready with no session, median of ${READINGS} readings. Floors read the same way in this run: a bare Node process ${bare.median.toFixed(1)} MiB; Node with zod and puppeteer-core's CDP connection loaded ${both.median.toFixed(1)} MiB.`,
      why,
    },
    {
      name: `daemon RSS, ${SESSIONS} idle sessions`,
      figure: after.median,
      baseline: before.median,
      unit: 'MiB',
      ratio: ratio(after, before),
      goal: { kind: 'under', limit: 55 },
      why: `${why} The sessions themselves are small (${perSessionKib.toFixed(1)} KiB each).`,
      note: `VmRSS of a separate \`tabmux daemon run\` process (Chrome and workers excluded), median of ${READINGS} readings; baseline is the same process before creating the sessions. ≈ ${perSessionKib.toFixed(1)} KiB per idle session.`,
    },
    {
      name: 'RSS per worker',
      figure: workers,
      baseline: children,
      unit: 'MiB',
      ratio: ratio(workers, children),
      goal: { kind: 'info' },
      note: `VmRSS of each upstream worker of the bench daemon (${workerPids.length} running) after the throughput, routing, snapshot and page-load rows, vs each directly driven chrome-devtools-mcp child (${directPids.length}) after the same work.`,
    },
  ];
}
