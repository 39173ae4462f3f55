import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChromeProcess } from '../../electron/core/browser/ChromeProcess.js';
import { Daemon } from '../../electron/core/daemon/Daemon.js';
import { findChrome } from '../../electron/core/browser/findChrome.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { chromeExtraArgs } from '../../electron/core/profile/settings.js';
import { asToolResult } from '../../shared/toolResult.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { UpstreamClient } from '../../electron/core/upstream/UpstreamClient.js';
import { bareNodeStart } from '../lib/bareNode.js';
import { makeBenchHome } from '../lib/benchHome.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { runCli } from '../lib/runCli.js';
import { summarize } from '../lib/stats.js';
import { Teardown } from '../lib/Teardown.js';
import { okText } from '../lib/toolCalls.js';

const WARM_UP = 1;
const SAMPLES = 9;

interface CliSample {
  total: number;
  daemonStart: number;
  sessionCreate: number;
  firstCall: number;
}

/**
 * Each sample stops its own processes when it ends; the run's teardown also holds it, so Ctrl-C in the middle of a
 * sample stops them too (running it again later is a no-op).
 */
function sampleTeardown(parent: Teardown): Teardown {
  const local = new Teardown();
  parent.add('cold start sample', async () => {
    await local.run();
  });
  return local;
}

/** From nothing to a first answer through the CLI: `daemon start`, `session create`, `mcp call list_pages`. */
async function tabmuxOnce(parent: Teardown, log: (message: string) => void): Promise<CliSample> {
  const local = sampleTeardown(parent);
  try {
    const home = makeBenchHome(local);
    const env = { ...home.env, TABMUX_HEADLESS: '1' };
    local.add('tabmux daemon stop', () => runCli(['daemon', 'stop'], env).then(() => undefined));
    const t0 = performance.now();
    await runCli(['daemon', 'start', '--headless'], env);
    const t1 = performance.now();
    const session = (await runCli(['session', 'create'], env)).trim();
    const t2 = performance.now();
    const listed = await runCli(['mcp', 'call', '--session', session, 'list_pages'], env);
    const t3 = performance.now();
    expectPageList(listed);
    return { total: t3 - t0, daemonStart: t1 - t0, sessionCreate: t2 - t1, firstCall: t3 - t2 };
  } finally {
    const failures = await local.run();
    if (failures.length > 0) {
      log(`  cold start cleanup: ${failures.join('; ')}`);
    }
  }
}

/** The same from nothing to a first answer in one CLI process: `tabmux mcp call --new-session list_pages`. */
async function oneCommandOnce(parent: Teardown, log: (message: string) => void): Promise<number> {
  const local = sampleTeardown(parent);
  try {
    const home = makeBenchHome(local);
    const env = { ...home.env, TABMUX_HEADLESS: '1' };
    local.add('tabmux daemon stop', () => runCli(['daemon', 'stop'], env).then(() => undefined));
    const t0 = performance.now();
    const listed = await runCli(['mcp', 'call', '--new-session', '--headless', 'list_pages'], env);
    const elapsed = performance.now() - t0;
    expectPageList(listed);
    return elapsed;
  } finally {
    const failures = await local.run();
    if (failures.length > 0) {
      log(`  cold start cleanup: ${failures.join('; ')}`);
    }
  }
}

/**
 * The daemon's own share of a cold start, without the three CLI processes: Daemon.start in this process, then
 * connect, create and bind a session, and the first list_pages over the socket.
 */
async function inProcessOnce(parent: Teardown): Promise<number> {
  const local = sampleTeardown(parent);
  try {
    const { paths } = makeBenchHome(local);
    const t0 = performance.now();
    const daemon = await Daemon.start({ paths, profile: { name: 'default', config: { headless: true } }, logger: Logger.silent(), headless: true });
    local.add('stop daemon', () => daemon.stop());
    const client = await DaemonClient.connect(daemon.socketPath, 'tabmux-bench');
    local.add('close connection', () => client.close());
    const session = await client.call('tabmux/session.create', {});
    await client.call('tabmux/session.bind', { session: session.id });
    okText(asToolResult(await client.request('tools/call', { name: 'list_pages', arguments: {} })), 'tabmux list_pages');
    return performance.now() - t0;
  } finally {
    await local.run();
  }
}

/** The same Chrome launch and the same upstream child, driven directly: spawn both, first list_pages answered. */
async function directOnce(parent: Teardown): Promise<number> {
  const local = sampleTeardown(parent);
  try {
    const userDataDir = mkdtempSync(join(tmpdir(), 'tmxb-chrome-'));
    local.add('remove user-data-dir', () => rmSync(userDataDir, { recursive: true, force: true }));
    const t0 = performance.now();
    const chrome = await ChromeProcess.launch({ executable: findChrome(undefined), userDataDir, headless: true, extraArgs: chromeExtraArgs({}), logger: Logger.silent() });
    local.add('stop Chrome', () => chrome.close());
    const child = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: chrome.browserUrl }, logger: Logger.silent() });
    local.add('stop upstream', () => child.close());
    okText(await child.callTool('list_pages', {}), 'direct list_pages');
    return performance.now() - t0;
  } finally {
    await local.run();
  }
}

export async function coldStart(teardown: Teardown, log: (message: string) => void): Promise<Row[]> {
  log(`cold start: tabmux CLI from nothing to a first call vs Chrome + upstream to a first call, ${SAMPLES} samples each`);
  for (let index = 0; index < WARM_UP; index++) {
    await tabmuxOnce(teardown, log);
    await oneCommandOnce(teardown, log);
    await inProcessOnce(teardown);
    await directOnce(teardown);
  }
  const cli: CliSample[] = [];
  const oneCommand: number[] = [];
  const inProcess: number[] = [];
  const direct: number[] = [];
  const steps = [
    async () => void cli.push(await tabmuxOnce(teardown, log)),
    async () => void oneCommand.push(await oneCommandOnce(teardown, log)),
    async () => void inProcess.push(await inProcessOnce(teardown)),
    async () => void direct.push(await directOnce(teardown)),
  ];
  for (let index = 0; index < SAMPLES; index++) {
    // Rotate the order so no side always follows the same one (page cache, a Chrome just exiting).
    for (let step = 0; step < steps.length; step++) {
      await steps[(index + step) % steps.length]?.();
    }
  }
  const nodeStart = (await bareNodeStart(SAMPLES)).median;
  const figure = summarize(cli.map((sample) => sample.total));
  const baseline = summarize(direct);
  const daemonOnly = summarize(inProcess);
  const single = summarize(oneCommand);
  const part = (pick: (sample: CliSample) => number): string => summarize(cli.map(pick)).median.toFixed(0);
  const why = (total: number, processes: number): string =>
    `The daemon's own path, in this process with no CLI, takes ${daemonOnly.median.toFixed(0)} ms (${ratio(daemonOnly, baseline).toFixed(2)}×, the row below): it starts its first worker while Chrome launches, and also connects to Chrome over CDP and installs its guard, which the baseline does not. The CLI route adds ${(total - daemonOnly.median).toFixed(0)} ms more: ${processes} Node processes start one after another (a bare \`node -e 0\` takes ${nodeStart.toFixed(0)} ms here), each loading its bundled command, on 2 cores that Chrome and the starting worker use at the same time. 1.3× of the baseline is ${(baseline.median * 1.3).toFixed(0)} ms.`;
  return [
    {
      name: 'cold start',
      figure,
      baseline,
      unit: 'ms',
      ratio: ratio(figure, baseline),
      goal: { kind: 'max', limit: 1.3 },
      why: why(figure.median, 4),
      note: `Fresh TABMUX_HOME each time: \`tabmux daemon start --headless\` (${part((s) => s.daemonStart)} ms) + \`tabmux session create\` (${part((s) => s.sessionCreate)} ms) + \`tabmux mcp call --session ID list_pages\` (${part((s) => s.firstCall)} ms), three CLI processes. Baseline: ChromeProcess.launch on a fresh user-data-dir + chrome-devtools-mcp spawn + first list_pages, in this process. ${SAMPLES} rotated samples after ${WARM_UP} warm-up each.`,
    },
    {
      name: 'cold start, mcp call --new-session',
      figure: single,
      baseline,
      unit: 'ms',
      ratio: ratio(single, baseline),
      goal: { kind: 'max', limit: 1.3 },
      why: why(single.median, 2),
      note: `Fresh TABMUX_HOME each time: \`tabmux mcp call --new-session --headless list_pages\`, one CLI process that starts the daemon, creates and binds a session and makes the call. Same baseline samples as the row above.`,
    },
    {
      name: 'cold start, daemon in process',
      figure: daemonOnly,
      baseline,
      unit: 'ms',
      ratio: ratio(daemonOnly, baseline),
      goal: { kind: 'info' },
      note: `The same path without CLI processes: Daemon.start (Chrome and the first worker started together, tools/list, socket) + connect + session create/bind + first list_pages over the socket, in this process. Same baseline samples as the row above.`,
    },
  ];
}

/** A first answer that is a page list, or the sample is no good. */
function expectPageList(listed: string): void {
  if (!listed.includes('Pages') && !listed.includes('No pages')) {
    throw new Error(`unexpected list_pages output: ${listed.slice(0, 300)}`);
  }
}
