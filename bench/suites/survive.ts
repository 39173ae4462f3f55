import type { DaemonStartup, DaemonStatus } from '../../shared/model.js';
import { makeBenchHome } from '../lib/benchHome.js';
import { startBridge } from '../lib/BridgeProcess.js';
import type { Row } from '../lib/Row.js';
import { runCli } from '../lib/runCli.js';
import { summarize } from '../lib/stats.js';
import type { Teardown } from '../lib/Teardown.js';
import { okText } from '../lib/toolCalls.js';
import { isRecord } from '../../shared/isRecord.js';
import { createConnection } from 'node:net';

const SAMPLES = 5;

/** The parts of one recovery, in ms, from the daemon's own start record (`status.startup`) and the agent's clock. */
interface Sample {
  /** The kill (or `daemon restart`) until the new daemon's process began: noticing, stopping the old one, spawning. */
  detect: number;
  /** Its process began until it claimed the profile: Node's start and the daemon's code loading. */
  start: number;
  /** Claimed until the browser was up: the old Chrome checked, connected over CDP and guarded. */
  adopt: number;
  /** Browser up until the socket took clients: the first worker started and the sessions restored from the journal. */
  restore: number;
  /** The socket open until the agent's call was answered: the client connects, binds its session again and calls. */
  rebind: number;
  total: number;
  /** Whether the first call was told it may or may not have run, and the agent called again. */
  again: boolean;
}

function partsOf(startedAt: number, endedAt: number, startup: DaemonStartup | undefined): Omit<Sample, 'total' | 'again'> {
  if (!startup?.browserAt || !startup.readyAt) {
    throw new Error('the new daemon gave no start record (status.startup)');
  }
  if (!startup.adopted) {
    throw new Error('the new daemon did not adopt the old Chrome');
  }
  return {
    detect: startup.processAt - startedAt,
    start: startup.claimedAt - startup.processAt,
    adopt: startup.browserAt - startup.claimedAt,
    restore: startup.readyAt - startup.browserAt,
    rebind: endedAt - startup.readyAt,
  };
}

/** Whether something still accepts connections on the socket. */
function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A daemon with one agent on `tabmux mcp serve` (the SDK client, as agents run it) on a page, then either SIGKILL of
 * the daemon (`crash`: the agent's next call finds the socket gone, its bridge starts a daemon, which adopts Chrome
 * and restores the session, and the bridge binds it again) or `tabmux daemon restart` followed by the agent's call.
 * Timed from the kill (or the command's start) to the agent's next successful call in its tab, in wall-clock time
 * (the parts come from the new daemon's start record).
 */
async function once(teardown: Teardown, how: 'crash' | 'restart'): Promise<Sample> {
  const home = makeBenchHome(teardown, 'tmxs-');
  const env = { ...home.env, TABMUX_HEADLESS: '1' };
  teardown.add('tabmux daemon stop', () => runCli(['daemon', 'stop'], env).then(() => undefined));
  const before = JSON.parse(await runCli(['daemon', 'start', '--json'], env)) as DaemonStatus;
  const agent = await startBridge(teardown, env, 'tabmux-bench-survive');
  try {
    okText(await agent.call('navigate_page', { url: 'data:text/html,<title>Kept</title>' }), 'navigate_page');
    const startedAt = Date.now();
    if (how === 'crash') {
      process.kill(before.pid, 'SIGKILL');
      // The agent's next call comes once the daemon is gone, its socket closed (its process may show as a zombie
      // while its threads still hold its files): a call already on its way at the kill is one in flight at the crash,
      // which may or may not have run and is answered so.
      while (await socketAnswers(before.socketPath)) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    } else {
      await runCli(['daemon', 'restart'], env);
    }
    const call = (): ReturnType<typeof agent.call> => agent.call('evaluate_script', { function: '() => document.title' });
    let result = await call();
    let again = false;
    if (result.isError === true && isRecord(result['_meta']) && result['_meta']['tabmux/error'] === 'daemon_not_running') {
      // Told the call may or may not have run (it reached the daemon just as it died): an agent checks and calls
      // again, as the message asks; a read of the title is safe to repeat.
      again = true;
      result = await call();
    }
    const title = okText(result, `the call after the ${how === 'crash' ? 'crash' : 'restart'}`);
    const endedAt = Date.now();
    if (!title.includes('Kept')) {
      throw new Error(`the agent did not go on in its tab: ${title}`);
    }
    const after = JSON.parse(await runCli(['daemon', 'status', '--json'], env)) as DaemonStatus;
    if (after.chrome.pid !== before.chrome.pid) {
      throw new Error(`Chrome was not adopted (pid ${String(before.chrome.pid)} then ${String(after.chrome.pid)})`);
    }
    return { ...partsOf(startedAt, endedAt, after.startup), total: endedAt - startedAt, again };
  } finally {
    await agent.close();
    await runCli(['daemon', 'stop'], env);
  }
}

export async function survive(teardown: Teardown, log: (message: string) => void): Promise<Row[]> {
  log(`survive: SIGKILL of the daemon, and tabmux daemon restart, to an mcp serve agent's next call in its tab, ${SAMPLES} samples each`);
  const rows: Row[] = [];
  for (const how of ['crash', 'restart'] as const) {
    const samples: Sample[] = [];
    for (let index = 0; index < SAMPLES; index++) {
      samples.push(await once(teardown, how));
    }
    const part = (pick: (sample: Sample) => number): string => summarize(samples.map(pick)).median.toFixed(0);
    const parts =
      `${how === 'crash' ? 'detect' : 'stop'} ${part((s) => s.detect)}, start ${part((s) => s.start)}, adopt ${part((s) => s.adopt)}, ` +
      `restore ${part((s) => s.restore)}, rebind and call ${part((s) => s.rebind)} (medians, ms)` +
      `; ${samples.filter((s) => s.again).length} of ${samples.length} first calls were told they may not have run and were made again`;
    rows.push({
      name: how === 'crash' ? 'daemon SIGKILL to next call' : 'daemon restart to next call',
      figure: summarize(samples.map((sample) => sample.total)),
      baseline: null,
      unit: 'ms',
      ratio: null,
      goal: { kind: 'under', limit: how === 'crash' ? 3000 : 2000 },
      why: `Parts: ${parts}. The first worker's start is in restore: the session's page ids come from a worker's page list.`,
      note:
        how === 'crash'
          ? `One agent on \`tabmux mcp serve\` (SDK client) on a page; the daemon is killed with SIGKILL and the agent's next call (evaluate_script) finds the socket gone: its bridge starts a daemon, which takes the dead daemon's claim, adopts its Chrome and restores the session from its journal, and the bridge binds the same session again. Parts: ${parts}; detect is the kill to the new daemon's process start (the agent calls once the killed daemon's socket refuses; its bridge notices the lost connection and starts a daemon), the rest from that daemon's start record (status.startup). ${SAMPLES} samples, a fresh TABMUX_HOME each.`
          : `The same agent, and \`tabmux daemon restart\` (the daemon writes its journal, lets Chrome go and exits; a new one adopts it) then the agent's next call. Parts: ${parts}; stop is the command's start to the new daemon's process start. ${SAMPLES} samples, a fresh TABMUX_HOME each.`,
    });
  }
  return rows;
}
