import type { DaemonStatus } from '../../shared/model.js';
import { makeBenchHome } from '../lib/benchHome.js';
import type { Row } from '../lib/Row.js';
import { runCli } from '../lib/runCli.js';
import { summarize } from '../lib/stats.js';
import type { Teardown } from '../lib/Teardown.js';

const SAMPLES = 5;

interface Sample {
  /** `tabmux daemon start` (or `daemon restart`) until it returned: the new daemon adopted Chrome and the sessions. */
  start: number;
  /** The session's next call (bound again with `--session`), in its own tab. */
  call: number;
}

/**
 * A daemon with one session on a page, then either SIGKILL (`crash`) or `tabmux daemon restart`; timed from the kill
 * (or the restart command) to the session's next successful call in its tab, in two parts: the daemon start that
 * adopts Chrome and restores the session, and the call.
 */
async function once(teardown: Teardown, how: 'crash' | 'restart'): Promise<Sample> {
  const home = makeBenchHome(teardown, 'tmxs-');
  const env = { ...home.env, TABMUX_HEADLESS: '1' };
  teardown.add('tabmux daemon stop', () => runCli(['daemon', 'stop'], env).then(() => undefined));
  const before = JSON.parse(await runCli(['daemon', 'start', '--json'], env)) as DaemonStatus;
  const session = (await runCli(['session', 'create'], env)).trim();
  await runCli(['mcp', 'call', '--session', session, 'navigate_page', JSON.stringify({ url: 'data:text/html,<title>Kept</title>' })], env);
  // The journal is written a moment after the change.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const t0 = performance.now();
  if (how === 'crash') {
    process.kill(before.pid, 'SIGKILL');
    await runCli(['daemon', 'start'], env);
  } else {
    await runCli(['daemon', 'restart'], env);
  }
  const t1 = performance.now();
  const title = await runCli(['mcp', 'call', '--session', session, 'evaluate_script', JSON.stringify({ function: '() => document.title' })], env);
  const t2 = performance.now();
  if (!title.includes('Kept')) {
    throw new Error(`the session did not go on in its tab: ${title}`);
  }
  const after = JSON.parse(await runCli(['daemon', 'status', '--json'], env)) as DaemonStatus;
  if (after.chrome.pid !== before.chrome.pid) {
    throw new Error(`Chrome was not adopted (pid ${String(before.chrome.pid)} then ${String(after.chrome.pid)})`);
  }
  await runCli(['daemon', 'stop'], env);
  return { start: t1 - t0, call: t2 - t1 };
}

export async function survive(teardown: Teardown, log: (message: string) => void): Promise<Row[]> {
  log(`survive: SIGKILL of the daemon, and tabmux daemon restart, to the session's next call in its tab, ${SAMPLES} samples each`);
  const rows: Row[] = [];
  for (const how of ['crash', 'restart'] as const) {
    const samples: Sample[] = [];
    for (let index = 0; index < SAMPLES; index++) {
      samples.push(await once(teardown, how));
    }
    const total = summarize(samples.map((sample) => sample.start + sample.call));
    const part = (pick: (sample: Sample) => number): string => summarize(samples.map(pick)).median.toFixed(0);
    rows.push({
      name: how === 'crash' ? 'daemon SIGKILL to next call' : 'daemon restart to next call',
      figure: total,
      baseline: null,
      unit: 'ms',
      ratio: null,
      goal: { kind: 'under', limit: how === 'crash' ? 3000 : 2000 },
      ...(how === 'restart'
        ? {
            why: `Most of it is the new daemon's start (${part((s) => s.start)} ms with the old daemon's stop and exit, which take a few hundred ms): its first upstream worker starts and lists the adopted Chrome's tabs before the session is restored, as after a crash; the call takes ${part((s) => s.call)} ms.`,
          }
        : {}),
      note:
        how === 'crash'
          ? `From the daemon's SIGKILL: \`tabmux daemon start\`, which takes the dead daemon's claim, adopts its Chrome (checks, a CDP connection, the guard) and restores the session from its journal (${part((s) => s.start)} ms), then \`tabmux mcp call --session ID evaluate_script\` in the same tab (${part((s) => s.call)} ms); two CLI processes. ${SAMPLES} samples, a fresh TABMUX_HOME each.`
          : `From \`tabmux daemon restart\` (the daemon writes its journal, lets Chrome go and exits; a new one adopts it: ${part((s) => s.start)} ms) to \`tabmux mcp call --session ID evaluate_script\` in the same tab (${part((s) => s.call)} ms). ${SAMPLES} samples, a fresh TABMUX_HOME each.`,
    });
  }
  return rows;
}
