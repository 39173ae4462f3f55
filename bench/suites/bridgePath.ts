import type { BenchContext } from '../lib/BenchContext.js';
import { startBridge } from '../lib/BridgeProcess.js';
import { makeBenchHome } from '../lib/benchHome.js';
import { DaemonChild } from '../lib/DaemonChild.js';
import { workerPidsOf } from '../lib/TabmuxDaemon.js';
import { bareNodeStart } from '../lib/bareNode.js';
import { sdkUpstreamClient } from '../lib/bytePipe.js';
import { minimalForwarderClient } from '../lib/minimalForwarder.js';
import { CpuPerCall } from '../lib/cpuPerCall.js';
import { comparePairs, compareRounds, interleavePairs } from '../lib/interleave.js';
import { ratio } from '../lib/report.js';
import type { Row } from '../lib/Row.js';
import { summarize, timed } from '../lib/stats.js';
import { okText, QUICK_EVAL, selectedPageId, type CallTool } from '../lib/toolCalls.js';
import { UpstreamClient } from '../../electron/core/upstream/UpstreamClient.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { V8_11_INTERRUPT_BUDGET } from '../../electron/core/platform/optimizeSooner.js';

const ATTACH_PAIRS = 10;
const WARM_UP = 5;
const PAIRS = 60;
/**
 * Calls made through the bridge (and as many on the direct child) before the steady-state row: a daemon that has
 * served agents for a while has run its call path often enough for V8 to optimize it, which a few hundred calls do not.
 */
const STEADY_CALLS = 3000;
/** list_pages through the bridge may cost at most this many times the direct call. */
const LIST_GOAL = 1.15;
/**
 * The bridge's lowered optimization budget against V8's default: two fresh bridges on the daemon of its own, their
 * first BUDGET_SKIP calls not measured (too few for either budget to matter), the next BUDGET_ROUNDS measured, when
 * the lowered budget has optimized the bridge's call path and the default one not yet.
 */
const BUDGET_SKIP = 300;
const BUDGET_ROUNDS = 600;

/**
 * The way agents reach tabmux: `tabmux mcp serve` on stdio in front of the daemon. Attach time (spawn to the
 * first `tools/list` answered) and the cost of a fast call through the whole path, each against the same thing
 * done on a chrome-devtools-mcp child of the direct Chrome with the same SDK client.
 */
export async function bridgePath(context: BenchContext): Promise<Row[]> {
  context.log(`bridge path: attach time, list_pages and evaluate_script through tabmux mcp serve vs direct`);
  const env = context.tabmux.env;
  const browserUrl = context.direct.chrome.browserUrl;
  const attachTabmux = async (): Promise<number> => {
    const bridge = await startBridge(context.teardown, env);
    await bridge.close();
    return bridge.attachMs;
  };
  const attachDirect = async (): Promise<number> => {
    const started = performance.now();
    const child = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: browserUrl }, logger: Logger.silent() });
    await child.listTools();
    const elapsed = performance.now() - started;
    await child.close();
    return elapsed;
  };
  await attachTabmux();
  await attachDirect();
  const attach = await interleavePairs(ATTACH_PAIRS, attachTabmux, attachDirect);
  const nodeStart = await bareNodeStart(ATTACH_PAIRS);
  const attachFigure = summarize(attach.a);
  const attachBaseline = summarize(attach.b);

  const bridge = await startBridge(context.teardown, env, 'bench-bridge-calls');
  const direct = await context.direct.page(await context.direct.childAt(0));
  const once = (call: CallTool, tool: string, args: Record<string, unknown>, what: string) => () => timed(async () => okText(await call(tool, args), what));
  // Each figure against a baseline with the same client: agents use the MCP SDK's, so the bridge and the byte pipe
  // are held against the SDK client on a direct child; tabmux's own DaemonClient on the socket against tabmux's own
  // upstream client on one.
  const directSdk = await sdkUpstreamClient(context.teardown, browserUrl, 'direct');
  const pipe = await sdkUpstreamClient(context.teardown, browserUrl, 'relay');
  const twoPipes = await sdkUpstreamClient(context.teardown, browserUrl, 'two relays');
  const forwarder = await minimalForwarderClient(context.teardown, browserUrl);
  const socket = await context.tabmux.session('bench-socket-list');
  // The layout agents have: the daemon a process of its own, as `tabmux mcp serve` starts it (the other sides reach the
  // daemon that runs in the bench's process, beside the clients that measure it).
  const ownHome = makeBenchHome(context.teardown);
  const ownDaemon = await DaemonChild.start(context.teardown, ownHome);
  const ownBridge = await startBridge(context.teardown, ownHome.env, 'bench-bridge-own-process');
  okText(await ownBridge.call('list_pages', {}), 'bridge list_pages, daemon of its own');
  // The CPU each list_pages costs the processes that serve only one side: the agent's path as agents have it (its
  // bridge, the daemon of its own, that daemon's workers), the byte relay, and the direct child.
  const ownWorkers = workerPidsOf(await ownDaemon.client.call('tabmux/status'));
  const ownPathCpu = new CpuPerCall(() => [[ownBridge.pid], [ownDaemon.pid], ownWorkers], WARM_UP);
  const relayCpu = new CpuPerCall(() => [[pipe.pid]], WARM_UP);
  const directCpu = new CpuPerCall(() => [[directSdk.pid]], WARM_UP);
  const directSdkSide = once(directSdk.call, 'list_pages', {}, 'direct SDK list_pages');
  const pipeSide = once(pipe.call, 'list_pages', {}, 'piped list_pages');
  const ownProcessSide = once(ownBridge.call, 'list_pages', {}, 'bridge list_pages, daemon of its own');
  // Eight ways to list_pages, in rotated rounds, so the hops can be told apart on one footing.
  const sides = [
    once(bridge.call, 'list_pages', {}, 'bridge list_pages'),
    directSdkSide,
    pipeSide,
    once(twoPipes.call, 'list_pages', {}, 'twice piped list_pages'),
    once(forwarder, 'list_pages', {}, 'forwarded list_pages'),
    once(socket.call, 'list_pages', {}, 'socket list_pages'),
    once((tool, args) => direct.child.callTool(tool, args), 'list_pages', {}, 'direct list_pages'),
    ownProcessSide,
  ];
  // CPU is read on the first rounds only: the steady rounds come after thousands of calls read by nobody.
  const readings = new Map([
    [directSdkSide, directCpu],
    [pipeSide, relayCpu],
    [ownProcessSide, ownPathCpu],
  ]);
  const measured = sides.map((side) => readings.get(side)?.wrap(side) ?? side);
  const [viaBridge, viaDirectSdk, viaPipe, viaTwoPipes, viaForwarder, viaSocket, viaDirect, viaOwnProcess] = await compareRounds(WARM_UP, PAIRS, measured);
  const [bridgeCpu, daemonCpu, workerCpu] = await ownPathCpu.series();
  const [relayOwnCpu] = await relayCpu.series();
  const [directChildCpu] = await directCpu.series();
  if (!bridgeCpu || !daemonCpu || !workerCpu || !relayOwnCpu || !directChildCpu) {
    throw new Error('CPU readings returned fewer series than processes');
  }
  if (!viaBridge || !viaDirectSdk || !viaPipe || !viaTwoPipes || !viaForwarder || !viaSocket || !viaDirect || !viaOwnProcess) {
    throw new Error('list_pages rounds returned fewer series than sides');
  }
  const lists = { figure: viaBridge, baseline: viaDirectSdk };
  const piped = { figure: viaPipe, baseline: viaDirectSdk };
  const twicePiped = { figure: viaTwoPipes, baseline: viaDirectSdk };
  const forwarded = { figure: viaForwarder, baseline: viaDirectSdk };
  const socketed = { figure: viaSocket, baseline: viaDirect };
  const ownProcess = { figure: viaOwnProcess, baseline: viaDirectSdk };
  const sdkPageId = selectedPageId(okText(await directSdk.call('new_page', { url: 'about:blank', background: true }), 'direct SDK new_page'));
  const evals = await comparePairs(
    WARM_UP,
    PAIRS,
    once(bridge.call, 'evaluate_script', QUICK_EVAL, 'bridge evaluate_script'),
    once((tool, args) => directSdk.call(tool, { ...args, pageId: sdkPageId }), 'evaluate_script', QUICK_EVAL, 'direct evaluate_script'),
  );
  // The same rounds again once the bridge's path and the direct child have served STEADY_CALLS calls more each.
  for (let index = 0; index < STEADY_CALLS; index++) {
    okText(await bridge.call('list_pages', {}), 'bridge list_pages');
    okText(await directSdk.call('list_pages', {}), 'direct SDK list_pages');
  }
  const [steadyBridge, steadyDirectSdk] = await compareRounds(WARM_UP, PAIRS, sides);
  if (!steadyBridge || !steadyDirectSdk) {
    throw new Error('steady list_pages rounds returned fewer series than sides');
  }
  const steady = { figure: steadyBridge, baseline: steadyDirectSdk };
  // Each bridge follows a direct call in its rounds, so neither finds the daemon's code freshly run by the other.
  const soonerBridge = await startBridge(context.teardown, ownHome.env, 'bench-bridge-budget-lowered');
  const defaultBridge = await startBridge(context.teardown, ownHome.env, 'bench-bridge-budget-default', [`--interrupt-budget=${V8_11_INTERRUPT_BUDGET}`]);
  const [viaSooner, budgetDirect, viaDefault] = await compareRounds(BUDGET_SKIP, BUDGET_ROUNDS, [
    once(soonerBridge.call, 'list_pages', {}, 'bridge list_pages, lowered budget'),
    directSdkSide,
    once(defaultBridge.call, 'list_pages', {}, 'bridge list_pages, V8 default budget'),
    directSdkSide,
  ]);
  if (!viaSooner || !budgetDirect || !viaDefault) {
    throw new Error('budget rounds returned fewer series than sides');
  }
  await soonerBridge.close();
  await defaultBridge.close();
  await bridge.close();
  await ownBridge.close();
  await ownDaemon.stop();
  const added = (pair: { figure: { median: number }; baseline: { median: number } }): string => (pair.figure.median - pair.baseline.median).toFixed(2);
  const path = 'Figure: the SDK client on a `tabmux mcp serve` child (stdio → bridge → daemon socket → router → worker). Baseline: the same SDK client on a chrome-devtools-mcp child of the direct Chrome (started as the daemon starts its workers), passing pageId where the tool takes one. The bridge lowers V8\'s optimization budget once it has served its first call (electron/core/platform/optimizeSooner.ts).';
  return [
    {
      name: 'bridge attach',
      figure: attachFigure,
      baseline: attachBaseline,
      unit: 'ms',
      ratio: ratio(attachFigure, attachBaseline),
      goal: { kind: 'under', limit: 100 },
      why: `A bare \`node -e 0\` takes ${nodeStart.median.toFixed(0)} ms from spawn to exit in this run (p90 ${nodeStart.p90.toFixed(0)}), so ${(attachFigure.median - nodeStart.median).toFixed(0)} ms of the attach is the bridge's own: reading its bundled code (no schema library, no MCP SDK), the connection and hello to the daemon, and two round trips on stdio. On this shared machine the same figure spreads from ${attachFigure.min.toFixed(0)} to ${attachFigure.max.toFixed(0)} ms within the run.`,
      note: `Spawn of \`tabmux mcp serve\` (daemon already running) to its first \`tools/list\` answered, through initialize, with the SDK's stdio client; ${ATTACH_PAIRS} interleaved pairs after a warm-up. Baseline: spawn of a chrome-devtools-mcp child on the direct Chrome to its \`tools/list\` answered. Goal: the figure itself, at most 100 ms.`,
    },
    {
      name: 'list_pages through the bridge',
      figure: lists.figure,
      baseline: lists.baseline,
      unit: 'ms',
      ratio: ratio(lists.figure, lists.baseline),
      goal: { kind: 'max', limit: LIST_GOAL },
      note: `list_pages, ${PAIRS} rounds after ${WARM_UP} warm-up rounds, each round calling through the bridge, the SDK client on a direct child, one and two byte pipes, a byte pipe and a minimal forwarder, the daemon socket, tabmux's own client on a direct child and the bridge on a daemon in a process of its own, in rotated order. ${path} Added latency: ${added(lists)} ms per call.`,
      why: `The bridge is a process of its own between the agent and the daemon, which the bench runs in its own process; that layout has a floor of its own, measured in this run (the forwarder row below): the same SDK client through a process that only copies bytes to a Unix socket, served here by a forwarder that only parses each request, hands it to an upstream child with tabmux's upstream client and serializes the answer, costs ${forwarded.figure.median.toFixed(2)} ms (${ratio(forwarded.figure, forwarded.baseline).toFixed(2)}×, ${added(forwarded)} ms added)${ratio(forwarded.figure, forwarded.baseline) > LIST_GOAL ? `, over the ${LIST_GOAL.toFixed(2)}× goal before any of tabmux's own work` : ''}. One hop that only copies bytes adds ${added(piped)} ms (${ratio(piped.figure, piped.baseline).toFixed(2)}×) and two ${added(twicePiped)} ms (${ratio(twicePiped.figure, twicePiped.baseline).toFixed(2)}×), the floor where the bridge and the daemon are both processes of their own, as in real use. What tabmux adds beyond the forwarder, ${(lists.figure.median - forwarded.figure.median).toFixed(2)} ms, is the bridge's and the daemon's own work per call: for the daemon alone over its socket ${added(socketed)} ms (${ratio(socketed.figure, socketed.baseline).toFixed(2)}×, the row below): the request parsed, checked and queued in the session's lane, the page list read from upstream's structured data, filtered to the session's pages and rendered again, the activity log's entry built and written before the reply (so an answer the caller saw is never missing from the log), the session journal checked, the reply serialized; none of it waits for another thread. A ${LIST_GOAL.toFixed(2)}× goal on a ~${lists.baseline.median.toFixed(1)} ms call leaves ${(lists.baseline.median * (LIST_GOAL - 1)).toFixed(2)} ms for both hops and all of that work. With the daemon a process of its own, as agents have it, the same path costs ${ownProcess.figure.median.toFixed(2)} ms in this run (${ratio(ownProcess.figure, ownProcess.baseline).toFixed(2)}×, a row below). On that path each call costs the bridge's event loop ${bridgeCpu.main.median.toFixed(0)} µs of CPU and the daemon's ${daemonCpu.main.median.toFixed(0)} µs, against ${relayOwnCpu.main.median.toFixed(0)} µs for a process that only copies the bytes (medians, the CPU rows below): ${(daemonCpu.main.median - relayOwnCpu.main.median).toFixed(0)} µs more in the daemon and ${(bridgeCpu.main.median - relayOwnCpu.main.median).toFixed(0)} µs more in the bridge than two such hops, on a machine where the call itself takes ${lists.baseline.median.toFixed(2)} ms.`,
    },
    {
      name: `list_pages through the bridge, after ${STEADY_CALLS} calls`,
      figure: steady.figure,
      baseline: steady.baseline,
      unit: 'ms',
      ratio: ratio(steady.figure, steady.baseline),
      goal: { kind: 'info' },
      note: `The row above measured again, the same rounds of every side in rotated order, once the bridge and the daemon have served ${STEADY_CALLS} more list_pages calls one after another (and the direct child as many), as a daemon serving agents for a while has: by then V8 has optimized whatever of the call path it optimizes at all. Added latency: ${added(steady)} ms per call.`,
    },
    {
      name: 'list_pages through the bridge, daemon in a process of its own',
      figure: ownProcess.figure,
      baseline: ownProcess.baseline,
      unit: 'ms',
      ratio: ratio(ownProcess.figure, ownProcess.baseline),
      goal: { kind: 'info' },
      note: `The first row's path as agents have it: \`tabmux daemon run\` a process of its own, started as tabmux starts one, with its own Chrome and workers on its default settings, where the rows above run the daemon in the bench's process; the same rounds and baseline as the rows above. The daemon's code is the same; what differs is the process it runs in, which is idle between its own calls while the browser, the workers and the clients have the machine's two cores. Added latency: ${added(ownProcess)} ms per call.`,
    },
    {
      name: 'list_pages through the bridge, lowered V8 budget vs default',
      figure: viaSooner,
      baseline: viaDefault,
      unit: 'ms',
      ratio: ratio(viaSooner, viaDefault),
      goal: { kind: 'info' },
      note: `Two fresh bridges on the daemon of its own: \`tabmux mcp serve\` as it runs (it lowers V8's optimization budget once it has served its first call, electron/core/platform/optimizeSooner.ts, on Node 20) vs one started with V8's default budget given to Node (\`--interrupt-budget=${V8_11_INTERRUPT_BUDGET}\`, which it keeps); calls ${BUDGET_SKIP + 1} to ${BUDGET_SKIP + BUDGET_ROUNDS} of each, in rotated rounds with a direct SDK call before each bridge's. Against that direct child: ${ratio(viaSooner, budgetDirect).toFixed(2)}× and ${ratio(viaDefault, budgetDirect).toFixed(2)}×. On other Node versions both bridges keep V8's default.`,
    },
    {
      name: 'CPU per list_pages: the bridge',
      figure: bridgeCpu.main,
      baseline: relayOwnCpu.main,
      unit: 'µs',
      ratio: ratio(bridgeCpu.main, relayOwnCpu.main),
      goal: { kind: 'info' },
      note: `CPU time on the main thread (the event loop, where a call's own work runs) of the \`tabmux mcp serve\` process, per list_pages of the daemon-of-its-own side above: the scheduler's count (/proc/<pid>/task/<pid>/schedstat, user and kernel time), read before each of the side's calls, so what the process does after answering counts toward the call before. Vs the relay process of the byte-pipe side, which only copies the same bytes. Means over all threads, whatever else the processes did meanwhile included: ${bridgeCpu.allMean.toFixed(0)} µs against ${relayOwnCpu.allMean.toFixed(0)} µs.`,
    },
    {
      name: 'CPU per list_pages: the daemon',
      figure: daemonCpu.main,
      baseline: relayOwnCpu.main,
      unit: 'µs',
      ratio: ratio(daemonCpu.main, relayOwnCpu.main),
      goal: { kind: 'info' },
      note: `The daemon in a process of its own, read as the row above, vs the same byte relay, the least a hop can cost: the daemon reads the request, queues it in the session's lane, calls its worker, reads and rewrites the page list for the session, logs the call and writes the reply. Means over all threads (V8's helper threads and Node's file system threads too): ${daemonCpu.allMean.toFixed(0)} µs against ${relayOwnCpu.allMean.toFixed(0)} µs.`,
    },
    {
      name: 'CPU per list_pages: the daemon\'s worker',
      figure: workerCpu.main,
      baseline: directChildCpu.main,
      unit: 'µs',
      ratio: ratio(workerCpu.main, directChildCpu.main),
      goal: { kind: 'info' },
      note: `The upstream workers of the daemon of its own, read as the rows above, vs the chrome-devtools-mcp child the direct SDK side calls: the same upstream making the same call.`,
    },
    {
      name: 'list_pages through a byte pipe',
      figure: piped.figure,
      baseline: piped.baseline,
      unit: 'ms',
      ratio: ratio(piped.figure, piped.baseline),
      goal: { kind: 'info' },
      note: `The floor of one extra process hop: the same SDK client on a Node relay that only copies bytes between its stdio and a chrome-devtools-mcp child (no parsing), vs the same SDK client on the direct child; the same rounds as the row above. Added latency: ${added(piped)} ms per call.`,
    },
    {
      name: 'list_pages through two byte pipes',
      figure: twicePiped.figure,
      baseline: twicePiped.baseline,
      unit: 'ms',
      ratio: ratio(twicePiped.figure, twicePiped.baseline),
      goal: { kind: 'info' },
      note: `The floor of two extra process hops, as many as the bridge and the daemon: the same SDK client on a relay that copies bytes to a second relay that copies them to a chrome-devtools-mcp child, vs the same SDK client on the direct child; the same rounds as the rows above. Added latency: ${added(twicePiped)} ms per call.`,
    },
    {
      name: 'list_pages through a byte pipe and a minimal forwarder',
      figure: forwarded.figure,
      baseline: forwarded.baseline,
      unit: 'ms',
      ratio: ratio(forwarded.figure, forwarded.baseline),
      goal: { kind: 'info' },
      note: `The floor of the bridge row's layout: the same SDK client on a Node process that only copies bytes between its stdio and a Unix socket (where the bridge stands), served in the bench's process (where its tabmux daemon runs) by a forwarder that parses each request, hands tool calls to a chrome-devtools-mcp child on the direct Chrome with tabmux's upstream client, and serializes the answer: no sessions, queue, rewriting or log. Vs the same SDK client on a direct child; the same rounds as the rows above. Added latency: ${added(forwarded)} ms per call.`,
    },
    {
      name: 'list_pages on the daemon socket',
      figure: socketed.figure,
      baseline: socketed.baseline,
      unit: 'ms',
      ratio: ratio(socketed.figure, socketed.baseline),
      goal: { kind: 'info' },
      note: `A session bound on the daemon's Unix socket (tabmux's DaemonClient → router → worker), no bridge, vs tabmux's own upstream client on a direct child (the client the daemon uses for its workers): the same lean client on both sides; the same rounds as the rows above. Added latency: ${added(socketed)} ms per call.`,
    },
    {
      name: 'evaluate_script through the bridge',
      figure: evals.figure,
      baseline: evals.baseline,
      unit: 'ms',
      ratio: ratio(evals.figure, evals.baseline),
      goal: { kind: 'max', limit: 1.02 },
      note: `evaluate_script \`() => 1\`, waitForStableDom false, ${PAIRS} interleaved pairs after ${WARM_UP} warm-up calls each. ${path} Added latency: ${added(evals)} ms per call.`,
      why: `The same two hops as list_pages (${added(lists)} ms added there) on a call of ~${evals.baseline.median.toFixed(0)} ms; 1.02× allows ${(evals.baseline.median * 0.02).toFixed(2)} ms, and this row's spread (p90 ${evals.figure.p90.toFixed(0)} vs ${evals.baseline.p90.toFixed(0)} ms) is wider than that.`,
    },
  ];
}
