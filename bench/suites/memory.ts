import { socketPath } from '../../electron/core/platform/paths.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { asToolResult } from '../../shared/toolResult.js';
import type { BenchContext } from '../lib/BenchContext.js';
import { makeBenchHome } from '../lib/benchHome.js';
import { DaemonChild } from '../lib/DaemonChild.js';
import { idleNodeResident } from '../lib/idleRss.js';
import { residentKib, rssKib, type ResidentKib } from '../lib/procStatus.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { summarize, type Summary } from '../lib/stats.js';
import { okText, QUICK_EVAL } from '../lib/toolCalls.js';

const SESSIONS = 100;
/** Agents attached at once, each on a connection of its own bound to its session, as `tabmux mcp serve` holds one. */
const AGENTS = 4;
/** Rounds of calls each agent makes before the reading: a snapshot, a script, the page list. */
const AGENT_ROUNDS = 5;
const MORE_SESSIONS = 200;
const READINGS = 5;
/** A settled reading: the resident size has not moved for this many readings a second apart (V8 gives memory back in steps some seconds apart). */
const SETTLED_READINGS = 12;
/**
 * V8's memory reducer gives back what start-up or a burst of calls used in collections some seconds apart (8 s from
 * the first), so a reading that held still for a while may still be taken before it ran: the reading waits at least
 * this long, and at most the limit.
 */
const SETTLE_MIN_MS = 30_000;
const SETTLE_LIMIT_MS = 60_000;

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

interface Settled {
  rss: Summary;
  anonMiB: number;
  fileMiB: number;
  waitedS: number;
}

/**
 * The resident size of a process left alone: read once a second until it has not moved for a few readings and half a
 * minute has passed (V8 shrinks its heap some seconds after a burst of work), at most a minute. The last readings
 * are the figure.
 */
async function settledRss(pid: number): Promise<Settled> {
  const started = Date.now();
  const readings: ResidentKib[] = [];
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const reading = await residentKib(pid);
    if (reading === undefined) {
      throw new Error(`process ${pid} is gone (or /proc is not available)`);
    }
    readings.push(reading);
    const last = readings.slice(-SETTLED_READINGS);
    const settled = last.length === SETTLED_READINGS && last.every((kept) => Math.abs(kept.rss - reading.rss) <= 64);
    if ((settled && Date.now() - started >= SETTLE_MIN_MS) || Date.now() - started > SETTLE_LIMIT_MS) {
      return { rss: summarize(last.slice(-READINGS).map((kept) => kept.rss / 1024)), anonMiB: reading.anon / 1024, fileMiB: reading.file / 1024, waitedS: (Date.now() - started) / 1000 };
    }
  }
}

/**
 * A daemon as agents use it: AGENTS connections, each bound to a session of its own (what `tabmux mcp serve` holds
 * per agent), each having made AGENT_ROUNDS rounds of calls (its first page-scoped call opens its tab), then left
 * attached and idle while the resident size settles.
 */
async function withAgents(context: BenchContext, nodeFlags: readonly string[] = []): Promise<Settled & { youngMiB: number }> {
  const home = makeBenchHome(context.teardown);
  const daemon = await DaemonChild.start(context.teardown, home, nodeFlags);
  const agents: ((name: string, args: Record<string, unknown>) => Promise<string>)[] = [];
  for (let index = 0; index < AGENTS; index++) {
    const client = await DaemonClient.connect(socketPath(home.paths, 'default'), 'bench-agent');
    context.teardown.add('close bench agent connection', () => client.close());
    const info = await client.call('tabmux/session.create', { label: `agent-${index}` });
    await client.call('tabmux/session.bind', { session: info.id });
    agents.push(async (name, args) => okText(asToolResult(await client.request('tools/call', { name, arguments: args })), `agent ${index} ${name}`));
  }
  for (let round = 0; round < AGENT_ROUNDS; round++) {
    await Promise.all(
      agents.map(async (call) => {
        await call('evaluate_script', QUICK_EVAL);
        await call('take_snapshot', {});
        await call('list_pages', {});
      }),
    );
  }
  const settled = await settledRss(daemon.pid);
  return { ...settled, youngMiB: await youngGenerationMiB(daemon) };
}

/** What V8 holds for new objects in the daemon, as the daemon's status tells it (read after the resident size). */
async function youngGenerationMiB(daemon: DaemonChild): Promise<number> {
  return ((await daemon.client.call('tabmux/status')).memory?.youngGenerationBytes ?? 0) / 1024 / 1024;
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
 * Daemon memory idle and with 100 idle sessions, read from /proc for a `tabmux daemon run` process of its own
 * (Chrome and the workers are other processes and not counted), and the resident size of each upstream worker next
 * to a directly driven child that did the same work.
 */
export async function memory(context: BenchContext): Promise<Row[]> {
  context.log(`memory: daemon RSS idle and with ${SESSIONS} idle sessions; RSS per worker`);
  const daemon = await DaemonChild.start(context.teardown, makeBenchHome(context.teardown));
  const ready = await steadyRss(daemon.pid);
  const idle = await settledRss(daemon.pid);
  const idleYoungMiB = await youngGenerationMiB(daemon);
  for (let index = 0; index < SESSIONS; index++) {
    await daemon.client.call('tabmux/session.create', { label: `idle-${index}` });
  }
  const withSessions = await settledRss(daemon.pid);
  // The first calls of a kind warm code once; what each further session costs is read from more of them.
  for (let index = 0; index < MORE_SESSIONS; index++) {
    await daemon.client.call('tabmux/session.create', { label: `more-${index}` });
  }
  const withMore = await settledRss(daemon.pid);
  const perSessionKib = Math.max(0, ((withMore.rss.median - withSessions.rss.median) * 1024) / MORE_SESSIONS);
  const warmedMiB = withSessions.rss.median - idle.rss.median - (perSessionKib * SESSIONS) / 1024;

  const agents = await withAgents(context);
  // The same, with V8's optimizing compiler off: what of the file pages is its machine code, mapped in once any
  // function of the daemon runs hot enough to be optimized.
  const unoptimized = await withAgents(context, ['--no-opt']);
  const compilerMiB = agents.fileMiB - unoptimized.fileMiB;

  const bare = await idleNodeResident();
  // V8's optimizing compiler is mapped in once any function of the daemon has run hot enough to be optimized: the
  // idle row holds its pages only if start-up alone got that far.
  const idleCompilerNote =
    idle.fileMiB - bare.file >= compilerMiB
      ? `${compilerMiB.toFixed(1)} MiB of them are V8's optimizing compiler, as the rows without it tell: start-up alone ran something hot enough to be optimized`
      : `V8's optimizing compiler (${compilerMiB.toFixed(1)} MiB, as the rows without it tell) is not among them yet: start-up alone runs nothing hot enough to be optimized`;
  const why =
    `A bare Node process idles at ${bare.rss.toFixed(1)} MiB here: ${bare.file.toFixed(1)} MiB of it pages of the node executable and its libraries, ${bare.anon.toFixed(1)} MiB its own memory. ` +
    `The daemon holds ${idle.fileMiB.toFixed(1)} MiB of file pages (+${(idle.fileMiB - bare.file).toFixed(1)}: the parts of Node it runs, pages shared with the upstream workers, which run the same executable; ${idleCompilerNote}) ` +
    `and ${idle.anonMiB.toFixed(1)} MiB of its own (+${(idle.anonMiB - bare.anon).toFixed(1)}: the bundled code of the daemon, the schemas it has checked something against (each is built on first use), WebSocket and CDP client, and their heap; the Node modules they use, OpenSSL's set-up for the WebSocket handshake and session ids among them). ` +
    `50 MiB leaves ${(50 - bare.rss).toFixed(1)} MiB above bare Node for both.`;
  const settleNote = (settled: Settled): string => `read once a second until it held still for ${SETTLED_READINGS} readings and ${SETTLE_MIN_MS / 1000} s had passed (${settled.waitedS.toFixed(0)} s here)`;
  const workerPids = context.tabmux.workerPids();
  const directPids = context.direct.childPids();
  const workers = await rssOfAll(workerPids);
  const children = await rssOfAll(directPids);
  return [
    {
      name: 'daemon RSS, idle',
      figure: idle.rss,
      baseline: null,
      unit: 'MiB',
      ratio: null,
      goal: { kind: 'under', limit: 50 },
      note: `VmRSS of a separate \`tabmux daemon run\` process (Chrome and workers excluded), started as tabmux starts one (the same environment: glibc's malloc with its mmap threshold fixed and at most two arenas, see electron/core/lifecycle/daemonEnv.ts), with no session and no request since it became ready, ${settleNote(idle)}: ${idle.anonMiB.toFixed(1)} MiB its own, ${idle.fileMiB.toFixed(1)} MiB file pages. Floor read in this run: a bare Node process ${bare.rss.toFixed(1)} MiB (${bare.anon.toFixed(1)} + ${bare.file.toFixed(1)}).`,
      why,
    },
    {
      name: 'daemon RSS, just ready',
      figure: ready,
      baseline: null,
      unit: 'MiB',
      ratio: null,
      goal: { kind: 'info' },
      note: `The same process the moment it is ready, median of ${READINGS} readings 200 ms apart: before V8 gives back the memory start-up used.`,
    },
    {
      name: `daemon RSS, ${SESSIONS} idle sessions`,
      figure: withSessions.rss.median,
      baseline: idle.rss.median,
      unit: 'MiB',
      ratio: ratio(withSessions.rss, idle.rss),
      goal: { kind: 'under', limit: 55 },
      why: `${why} The sessions themselves are small: ${MORE_SESSIONS} more cost ${perSessionKib.toFixed(1)} KiB each; the rest of the growth over idle (${warmedMiB.toFixed(1)} MiB) is code and type feedback that the first control calls warm once.`,
      note: `The same process after ${SESSIONS} sessions were created over its socket, ${settleNote(withSessions)}; baseline is the idle row. ${MORE_SESSIONS} more sessions, read the same way: ${withMore.rss.median.toFixed(1)} MiB, ≈ ${perSessionKib.toFixed(1)} KiB per idle session.`,
    },
    {
      name: `daemon RSS, ${AGENTS} agents attached`,
      figure: agents.rss,
      baseline: null,
      unit: 'MiB',
      ratio: null,
      goal: { kind: 'under', limit: 52 },
      why:
        `${why} With ${AGENTS} agents attached the daemon holds ${(agents.rss.median - idle.rss.median).toFixed(1)} MiB more than the idle row ` +
        `(${(agents.anonMiB - idle.anonMiB).toFixed(1)} MiB of its own, ${(agents.fileMiB - idle.fileMiB).toFixed(1)} MiB of file pages). Of its own, V8's young generation (where new objects go) holds ${agents.youngMiB.toFixed(1)} MiB against ${idleYoungMiB.toFixed(1)} MiB idle: ` +
        `the calls' bursts of short-lived objects (snapshots above all) grow it, and V8 gives it back only in a collection it runs to reduce memory, which a daemon left quiet may not run, so this part varies from run to run; ` +
        `the rest is code, the call path (routing, reply rewriting, the activity log) compiled once, bytecode and machine code; each agent's connection, session and tab are small (see the row above). 52 MiB leaves ${(52 - bare.rss).toFixed(1)} MiB above bare Node. ` +
        `Of the file pages, ${compilerMiB.toFixed(1)} MiB are V8's optimizing compiler, pages of the node executable mapped in the first time any of the daemon's functions is optimized (the row below: the same daemon with it off); ` +
        `tabmux leaves it on, since without it the daemon's own work per call (above all reading and rewriting snapshots) runs in V8's interpreter and baseline compiler.`,
      note: `A separate \`tabmux daemon run\` process of its own (default settings) with ${AGENTS} connections, each bound to a session of its own as \`tabmux mcp serve\` binds one per agent, each having made ${AGENT_ROUNDS} rounds of evaluate_script, take_snapshot and list_pages (the agents at once), then left attached and idle: ${settleNote(agents)}: ${agents.anonMiB.toFixed(1)} MiB its own, ${agents.fileMiB.toFixed(1)} MiB file pages.`,
    },
    {
      name: `daemon RSS, ${AGENTS} agents attached, no optimizing compiler`,
      figure: unoptimized.rss,
      baseline: agents.rss,
      unit: 'MiB',
      ratio: ratio(unoptimized.rss, agents.rss),
      goal: { kind: 'info' },
      note: `The row above with the daemon started as \`node --no-opt\` (V8's optimizing compiler off), to tell its part of the file pages: ${unoptimized.anonMiB.toFixed(1)} MiB its own, ${unoptimized.fileMiB.toFixed(1)} MiB file pages (${compilerMiB.toFixed(1)} MiB fewer); baseline is the row above. A diagnosis, not a setting tabmux uses.`,
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
