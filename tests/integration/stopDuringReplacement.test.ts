import { expect, it } from 'vitest';
import { html, startTestDaemon } from '../helpers/daemonFixture.js';
import { runningChildren } from '../helpers/childProcesses.js';
import { waitFor } from '../helpers/waitFor.js';

/**
 * A call the browser cannot end (a promise that never settles) runs past its limit, so its worker is replaced; the daemon is stopped while
 * the replacement is still starting. The replacement must not outlive the stop: it was left running, and with it the
 * stopped daemon's process, which nothing would ever stop.
 */
it.runIf(process.platform === 'linux')('stops a worker replacement that was still starting when the daemon stopped', async () => {
  const t = await startTestDaemon({ workers: 1, callTimeoutMs: 1500, toolTimeoutsMs: { new_page: 30_000 } });
  let stopped = false;
  try {
    const s = await t.session('stuck');
    await s.text('new_page', { url: html('<p>nothing comes</p>', 'Waiting') });
    // A promise that never settles: there is no script running for the browser to end, so the worker is replaced.
    const stuck = await s.call('evaluate_script', { function: '() => new Promise(() => {})' });
    expect(stuck.isError).toBe(true);
    await waitFor(() => (t.warnings().some((line) => line.includes('replacing upstream worker 0')) ? true : undefined), 'the stuck worker to be replaced', 10_000);
    await t.stop();
    stopped = true;
    await waitFor(() => (runningChildren((command) => command.includes('chrome-devtools-mcp')).length === 0 ? true : undefined), 'every upstream worker of the stopped daemon to exit', 15_000);
  } finally {
    if (!stopped) {
      await t.stop();
    }
  }
});
