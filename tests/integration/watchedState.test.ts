import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldDaemonEvent, type DaemonState } from '../../electron/core/supervisor/foldDaemonEvent.js';
import type { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemonFixture.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ workers: 2 });
});

afterAll(async () => {
  await t.stop();
});

/** What a dashboard holds: the status when it subscribed, with every pushed event folded in since. */
async function watch(client: DaemonClient): Promise<() => DaemonState> {
  let state: DaemonState = { status: await client.call('tabmux/subscribe'), tabs: [] };
  client.onEvent((event) => {
    state = foldDaemonEvent(state, event);
  });
  return () => state;
}

describe('what a watcher of the event stream sees', () => {
  it('shows a worker that started after the watcher subscribed as ready, with its pid', async () => {
    const watcher = await watch(await t.connect());
    const worker1 = (): { state: string; pid: number | null } | undefined => watcher().status.workers.find((worker) => worker.index === 1);
    expect(worker1()?.state).toBe('stopped');

    // The second session is pinned to worker 1, which starts on its first call.
    const first = await t.session('first');
    const second = await t.session('second');
    await first.text('list_pages');
    await second.text('list_pages');
    const status = await second.client.call('tabmux/status');
    const real = status.workers.find((worker) => worker.index === 1);
    expect(real?.state).toBe('ready');

    await waitUntil(() => worker1()?.state === 'ready', 'worker 1 to show as ready to the watcher', 30_000);
    expect(worker1()?.pid).toBe(real?.pid);
  });

  it("carries each session's last call, with its outcome, once it is answered", async () => {
    const watcher = await watch(await t.connect());
    const agent = await t.session('last-call');
    const lastCall = () => watcher().status.sessions.find((session) => session.id === agent.id)?.lastCall;
    expect(lastCall() ?? null).toBeNull();

    await agent.text('list_pages');
    const ok = await waitFor(() => (lastCall()?.tool === 'list_pages' ? lastCall() : undefined), 'the last call to be list_pages');
    expect(ok?.outcome).toBe('ok');
    expect(ok?.endedAt).toBeGreaterThanOrEqual(ok?.at ?? Infinity);

    const refused = await agent.call('navigate_page', { url: 'chrome://version' });
    expect(refused.isError).toBe(true);
    const rejected = await waitFor(() => (lastCall()?.tool === 'navigate_page' ? lastCall() : undefined), 'the last call to be navigate_page');
    expect(rejected?.outcome).toBe('rejected');
  });
});
