import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonStatus } from '../../shared/model.js';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { cliDriver } from '../helpers/cliDriver.js';
import { startMcpServeAgent, type McpServeAgent } from '../helpers/mcpServeAgent.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor } from '../helpers/waitFor.js';

/**
 * An agent whose daemon stops answering in the middle of its call (the daemon's process stopped with SIGSTOP, as a
 * suspended job or a debugger leaves it): the call ends with an error that says so instead of waiting for ever, and
 * once the daemon runs again the agent's next call works, in the same session. A separate daemon process, a real
 * Chromium and the real upstream.
 */

const { home, env, cleanup } = makeTestHome();
const { json, tabmux } = cliDriver(home);
let agent: McpServeAgent;
let daemonPid = 0;

beforeAll(async () => {
  daemonPid = (await json<DaemonStatus>(['daemon', 'start'])).pid;
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith('TABMUX_')));
  // The client would give up on its own after this; the bridge must answer well before.
  agent = await startMcpServeAgent({ name: 'stuck-daemon-agent', env: { ...inherited, ...env, TABMUX_HEADLESS: '1' }, callTimeoutMs: 90_000 });
}, 60_000);

afterAll(async () => {
  if (isProcessAlive(daemonPid)) {
    process.kill(daemonPid, 'SIGCONT');
  }
  await agent.client.close();
  await tabmux(['daemon', 'stop']);
  cleanup();
});

describe('an agent whose daemon stops answering during its call', () => {
  it('is told so instead of waiting, and works again in its session once the daemon runs', async () => {
    const opened = await agent.call('new_page', { url: 'data:text/html,<title>kept</title><p>kept</p>' });
    expect(opened.isError, agent.log()).toBe(false);
    const sessions = await json<{ id: string; label: string | null }[]>(['session', 'list']);
    const session = sessions.find((info) => info.label === 'stuck-daemon-agent')?.id;
    expect(session).toBeDefined();

    // A call that runs a minute in the page; the daemon is stopped once it runs.
    const long = agent.call('evaluate_script', { function: '() => new Promise((resolve) => setTimeout(() => resolve("late"), 60000))' });
    await waitFor(async () => {
      const status = await json<DaemonStatus>(['daemon', 'status']);
      return status.queue.some((entry) => entry.tool === 'evaluate_script' && entry.state === 'running') ? true : undefined;
    }, 'the long call to be running');
    process.kill(daemonPid, 'SIGSTOP');
    try {
      const told = await long;
      expect(told.isError, agent.log()).toBe(true);
      expect(told.text).toContain(`the tabmux daemon for profile default (pid ${daemonPid}) stopped answering while this call was under way`);
      expect(told.text).toContain('tabmux daemon stop --profile default');
    } finally {
      process.kill(daemonPid, 'SIGCONT');
    }

    const listed = await agent.call('list_pages');
    expect(listed.isError, `${listed.text}\n${agent.log()}`).toBe(false);
    expect(listed.text).toContain('data:text/html,<title>kept</title>');
    const after = await json<{ id: string; label: string | null }[]>(['session', 'list']);
    expect(after.map((info) => info.id)).toContain(session);
  });

  it('ends a script\'s tabmux mcp call the same way', async () => {
    const session = (await tabmux(['session', 'create', '--label', 'script'])).stdout.trim();
    await tabmux(['mcp', 'call', '--session', session, 'new_page', JSON.stringify({ url: 'data:text/html,<p>script</p>' })]);
    // Killed (code null) were it to wait on the stopped daemon for a minute.
    const call = tabmux(['mcp', 'call', '--session', session, 'evaluate_script', JSON.stringify({ function: '() => new Promise(() => {})' })], {}, 60_000);
    await waitFor(async () => {
      const status = await json<DaemonStatus>(['daemon', 'status']);
      return status.queue.some((entry) => entry.sessionId === session && entry.state === 'running') ? true : undefined;
    }, 'the script\'s call to be running');
    process.kill(daemonPid, 'SIGSTOP');
    try {
      const run = await call;
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(`the tabmux daemon for profile default (pid ${daemonPid}) stopped answering while this call was under way`);
    } finally {
      process.kill(daemonPid, 'SIGCONT');
    }
  });
});
