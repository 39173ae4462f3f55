import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { DaemonStatus } from '../../shared/model.js';
import { readDaemonPidFile } from '../../electron/core/lifecycle/DaemonPidFile.js';
import { Supervisor } from '../../electron/core/supervisor/Supervisor.js';
import type { ToolInfo } from '../../shared/protocol.js';
import { alive, cliDriver } from '../helpers/cliDriver.js';
import { cliPath } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';

/**
 * Daemons that tidy up, driven through the compiled CLI with real daemons and a real Chromium: commands that only
 * read start nothing, `daemon stop --all` stops every profile's daemon, and a daemon started on demand exits with its
 * Chrome once idle while one started by `daemon start` stays.
 */

const { home, paths, cleanup } = makeTestHome();
const { tabmux, ok, json } = cliDriver(home);

afterAll(async () => {
  await tabmux(['daemon', 'stop', '--all']);
  cleanup();
});

/** Pids of the processes whose command line names this test's home: its daemons and their Chromes. */
function processesOfHome(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) {
      continue;
    }
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(home) && alive(Number(entry))) {
        pids.push(Number(entry));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

let offlineTools: ToolInfo[] = [];

describe('commands that only read', () => {
  it('start no daemon and no Chrome on a profile with none running', async () => {
    const sessions = await tabmux(['session', 'list', '--json']);
    expect(sessions.code).toBe(0);
    expect(JSON.parse(sessions.stdout)).toEqual([]);
    expect(await ok(['session', 'list'])).toMatch(/^no sessions \(the daemon for profile default is not running\)/);

    const pages = await tabmux(['pages', '--json']);
    expect(pages.code).toBe(0);
    expect(JSON.parse(pages.stdout)).toEqual([]);
    expect(await ok(['pages'])).toMatch(/not running/);

    expect((await tabmux(['daemon', 'status'])).code).toBe(3);
    expect((await tabmux(['log'])).code).toBe(0);

    const tools = await tabmux(['mcp', 'list', '--json']);
    expect(tools.code).toBe(0);
    offlineTools = JSON.parse(tools.stdout) as ToolInfo[];
    expect(offlineTools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['take_snapshot', 'navigate_page', 'list_pages']));
    // The router's view: pageId is its own business, never an agent's.
    expect(offlineTools.find((tool) => tool.name === 'take_snapshot')?.inputSchema.properties).not.toHaveProperty('pageId');
    expect(await ok(['mcp', 'list'])).toMatch(/^take_snapshot\(|\ntake_snapshot\(/);

    expect(existsSync(join(home, 'run', 'default.sock'))).toBe(false);
    expect(processesOfHome()).toEqual([]);
  });

  it('list the same tools without a daemon as a running daemon serves', async () => {
    await ok(['daemon', 'start']);
    expect(await json<ToolInfo[]>(['mcp', 'list'])).toEqual(offlineTools);
    await ok(['daemon', 'stop']);
  });
});

describe('daemon stop --all', () => {
  it("stops every profile's daemon with its Chrome, and is content when none runs", async () => {
    await ok(['profile', 'add', 'second']);
    await ok(['daemon', 'start']);
    await ok(['daemon', 'start', '--profile', 'second']);
    const first = await json<DaemonStatus>(['daemon', 'status']);
    const second = await json<DaemonStatus>(['daemon', 'status', '--profile', 'second']);
    const pids = [first.pid, first.chrome.pid, second.pid, second.chrome.pid].filter((pid): pid is number => pid !== null);
    expect(pids).toHaveLength(4);

    const stopped = await tabmux(['daemon', 'stop', '--all', '--json']);
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual({ stopped: ['default', 'second'], how: { default: 'asked', second: 'asked' }, failed: [] });
    for (const pid of pids) {
      await waitUntil(() => !alive(pid), `process ${pid} to exit`, 30_000);
    }
    expect((await tabmux(['daemon', 'status'])).code).toBe(3);
    expect((await tabmux(['daemon', 'status', '--profile', 'second'])).code).toBe(3);

    const none = await tabmux(['daemon', 'stop', '--all']);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/no daemon was running/);
  });
});

/** An idle time far below a test's deadlines, and far above a step's time on a loaded machine. */
const IDLE_EXIT_MS = 1500;

/** Longer than the idle time several times over: a daemon that would exit idle has had every chance to. */
const sleepPastIdle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, IDLE_EXIT_MS * 3));

describe('idle exit', () => {
  it('a daemon started on demand stays while an MCP client is connected, and exits with its Chrome once it left', async () => {
    const client = await connectMcpClient();
    try {
      const result = await client.callTool({ name: 'list_pages', arguments: {} });
      expect(result.isError).not.toBe(true);
      const status = await json<DaemonStatus>(['daemon', 'status']);
      expect(status.lifetime).toEqual({ startedBy: 'demand', idleExitMs: IDLE_EXIT_MS, idleSince: null });
      expect(await ok(['daemon', 'status'])).toMatch(/started on demand, exits after 1500 ms idle/);
      const pids = [status.pid, status.chrome.pid].filter((pid): pid is number => pid !== null);
      expect(pids).toHaveLength(2);

      await sleepPastIdle();
      expect(pids.filter((pid) => alive(pid))).toEqual(pids);

      // The client goes: its bridge closes its session and leaves, and the daemon is idle from then on.
      await client.close();
      for (const pid of pids) {
        await waitUntil(() => !alive(pid), `process ${pid} to exit once idle`, 60_000);
      }
      expect(existsSync(join(home, 'run', 'default.sock'))).toBe(false);
      expect((await tabmux(['daemon', 'status'])).code).toBe(3);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('serves every client that comes while a daemon started on demand runs out its idle time, or starts another', async () => {
    const daemons = new Set<number>();
    // Pauses after a client leaves, in idle times: around the deadline (the client's own exit and the next one's
    // start add to each), and one well past it, so the daemon surely exits once a cycle.
    const pauses = [0.6, 0.9, 1, 1.1, 1.3, 2.5];
    for (let round = 0; round < pauses.length * 2; round += 1) {
      const client = await connectMcpClient();
      try {
        const result = await client.callTool({ name: 'list_pages', arguments: {} });
        expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
        const pid = (await readDaemonPidFile(join(home, 'run', 'default.pid')))?.pid;
        expect(pid).toEqual(expect.any(Number));
        daemons.add(pid ?? 0);
      } finally {
        await client.close();
      }
      // The next client comes around the moment the daemon, idle since this one left, decides to exit: before it,
      // at it, or after it, each must be served.
      await new Promise((resolve) => setTimeout(resolve, (pauses[round % pauses.length] ?? 1) * IDLE_EXIT_MS));
    }
    expect(daemons.size).toBeGreaterThanOrEqual(2);
    for (const pid of daemons) {
      await waitUntil(() => !alive(pid), `daemon ${pid} to exit once idle`, 60_000);
    }
  }, 240_000);

  it('a script that keeps asking for its status, sessions and pages does not keep a daemon started on demand', async () => {
    const client = await connectMcpClient();
    let pid = 0;
    try {
      await client.callTool({ name: 'list_pages', arguments: {} });
      pid = (await json<DaemonStatus>(['daemon', 'status'])).pid;
    } finally {
      await client.close();
    }
    // Asked more often than the idle time: a read does not count as using the daemon, so its idle clock runs on.
    let sawIdleSince = false;
    const deadline = Date.now() + 60_000;
    while (alive(pid) && Date.now() < deadline) {
      const status = await tabmux(['daemon', 'status', '--json']);
      if (status.code === 0) {
        sawIdleSince ||= (JSON.parse(status.stdout) as DaemonStatus).lifetime?.idleSince !== null;
      }
      await tabmux(['session', 'list']);
      await tabmux(['pages']);
      await new Promise((resolve) => setTimeout(resolve, IDLE_EXIT_MS / 5));
    }
    expect(alive(pid)).toBe(false);
    expect(sawIdleSince).toBe(true);
  }, 120_000);

  it('a tray or dashboard watching a daemon started on demand does not keep it, and shows it stopped', async () => {
    const supervisor = new Supervisor({ paths, pollIntervalMs: 300 });
    await supervisor.start();
    try {
      const client = await connectMcpClient();
      let pid: number | undefined;
      try {
        await client.callTool({ name: 'list_pages', arguments: {} });
        const watched = await waitFor(() => (supervisor.view('default').state === 'ready' ? supervisor.view('default') : undefined), 'the supervisor to watch the daemon');
        pid = watched.status?.pid;
        expect(watched.status?.lifetime?.startedBy).toBe('demand');
      } finally {
        await client.close();
      }
      expect(pid).toEqual(expect.any(Number));
      await waitUntil(
        () => supervisor.view('default').state === 'stopped',
        () => `the supervisor to show the daemon stopped (it shows ${supervisor.view('default').state}, ${supervisor.view('default').lastError ?? 'no error'}; the daemon ${alive(pid ?? 0) ? 'runs' : 'has exited'})`,
        60_000,
      );
      await waitUntil(() => !alive(pid ?? 0), 'the daemon to exit', 30_000);
    } finally {
      await supervisor.dispose();
    }
  }, 120_000);

  it('a tray or dashboard watching a daemon whose stop takes long shows it stopping, says why, then stopped, not crashed', async () => {
    // Told slow after 1 s here (20 s by default): the daemon's Chrome is stuck, so its stop waits out Chrome's close
    // grace before it kills it, and only then removes its pid file and exits.
    const supervisor = new Supervisor({ paths, pollIntervalMs: 300, slowStopMs: 1000 });
    await supervisor.start();
    const daemon = { pid: 0, chromePid: 0 };
    try {
      await hangChromeOfWatchedDaemon(supervisor, daemon);
      const { pid, chromePid } = daemon;
      const slow = await waitFor(
        () => (/is still stopping/.test(supervisor.view('default').lastError ?? '') ? supervisor.view('default') : undefined),
        () => `the profile to say its daemon is slow to stop (it shows ${supervisor.view('default').state}, ${supervisor.view('default').lastError ?? 'no error'})`,
        30_000,
      );
      expect(slow.state).toBe('stopping');
      expect(alive(pid)).toBe(true);
      await waitUntil(
        () => supervisor.view('default').state === 'stopped',
        () => `the supervisor to show the daemon stopped (it shows ${supervisor.view('default').state}, ${supervisor.view('default').lastError ?? 'no error'}; the daemon ${alive(pid) ? 'runs' : 'has exited'})`,
        60_000,
      );
      expect(supervisor.view('default').lastError).toBeNull();
      expect(alive(pid)).toBe(false);
      expect(alive(chromePid)).toBe(false);
    } finally {
      if (daemon.chromePid > 0 && alive(daemon.chromePid)) {
        process.kill(daemon.chromePid, 'SIGKILL');
      }
      await supervisor.dispose();
    }
  }, 120_000);

  it('a tray or dashboard shows a daemon whose stop got stuck, and its Stop ends it with its Chrome', async () => {
    // Stuck after 2 s here (2 minutes by default): the daemon's Chrome is stopped, so its own stop still waits on it.
    const supervisor = new Supervisor({ paths, pollIntervalMs: 300, slowStopMs: 1000, stuckStopMs: 2000 });
    await supervisor.start();
    const daemon = { pid: 0, chromePid: 0 };
    try {
      await hangChromeOfWatchedDaemon(supervisor, daemon);
      const { pid, chromePid } = daemon;
      const stuck = await waitFor(
        () => (supervisor.view('default').state === 'crashed' ? supervisor.view('default') : undefined),
        () => `the profile to show its daemon stuck (it shows ${supervisor.view('default').state}, ${supervisor.view('default').lastError ?? 'no error'})`,
        60_000,
      );
      expect(stuck.lastError).toContain(`The daemon (pid ${pid}) closed its connections and has not exited since; Stop ends it (from a shell: tabmux daemon stop --profile default)`);
      expect(alive(pid)).toBe(true);
      expect((await supervisor.stopProfile('default')).state).toBe('stopping');
      await waitUntil(() => supervisor.view('default').state === 'stopped', () => `the profile to show stopped (it shows ${supervisor.view('default').state})`, 60_000);
      // Shown stopped once it is gone, not before.
      expect(alive(pid)).toBe(false);
      await waitUntil(() => !alive(chromePid), 'its Chrome to be gone');
    } finally {
      if (daemon.chromePid > 0 && alive(daemon.chromePid)) {
        process.kill(daemon.chromePid, 'SIGKILL');
      }
      await supervisor.dispose();
    }
  }, 120_000);

  it('daemon restart of a daemon started on demand starts one that exits idle too', async () => {
    const client = await connectMcpClient();
    let restarted: DaemonStatus;
    try {
      await client.callTool({ name: 'list_pages', arguments: {} });
      const before = await json<DaemonStatus>(['daemon', 'status']);
      expect(before.lifetime?.startedBy).toBe('demand');
      // The idle time is the new daemon's environment's, as for any daemon: the restarting command's.
      restarted = JSON.parse(await ok(['daemon', 'restart', '--json'], { TABMUX_IDLE_EXIT_MS: String(IDLE_EXIT_MS) })) as DaemonStatus;
      expect(restarted.pid).not.toBe(before.pid);
      expect(restarted.lifetime).toMatchObject({ startedBy: 'demand', idleExitMs: IDLE_EXIT_MS });
      // The agent goes on, on the new daemon.
      expect((await client.callTool({ name: 'list_pages', arguments: {} })).isError).not.toBe(true);
    } finally {
      await client.close();
    }
    await waitUntil(() => !alive(restarted.pid), 'the restarted daemon to exit once idle', 60_000);
  }, 120_000);

  it('daemon start keeps a daemon that was started on demand', async () => {
    const client = await connectMcpClient();
    let before: DaemonStatus;
    try {
      await client.callTool({ name: 'list_pages', arguments: {} });
      before = await json<DaemonStatus>(['daemon', 'status']);
      expect(before.lifetime?.startedBy).toBe('demand');
      const started = await tabmux(['daemon', 'start', '--json']);
      expect(started.code).toBe(0);
      expect(JSON.parse(started.stdout)).toMatchObject({ started: false, pid: before.pid, lifetime: { startedBy: 'daemon-start', idleExitMs: null } });
    } finally {
      await client.close();
    }
    await sleepPastIdle();
    const after = await json<DaemonStatus>(['daemon', 'status']);
    expect(after.pid).toBe(before.pid);
    expect(after.lifetime).toEqual({ startedBy: 'daemon-start', idleExitMs: null, idleSince: null });
    await ok(['daemon', 'stop']);
  });

  it('a daemon started by daemon start stays however long it is idle', async () => {
    await ok(['daemon', 'start'], { TABMUX_IDLE_EXIT_MS: String(IDLE_EXIT_MS) });
    const status = await json<DaemonStatus>(['daemon', 'status']);
    expect(status.lifetime).toEqual({ startedBy: 'daemon-start', idleExitMs: null, idleSince: null });
    expect(await ok(['daemon', 'status'])).toMatch(/started by daemon start, stays until stopped/);
    await sleepPastIdle();
    expect(alive(status.pid)).toBe(true);
    expect((await json<DaemonStatus>(['daemon', 'status'])).pid).toBe(status.pid);
    await ok(['daemon', 'stop']);
  });
});

/**
 * An agent's call starts the daemon on demand, the supervisor watches it, then its Chrome is stopped (SIGSTOP) and
 * the agent leaves: the daemon, idle, stops, and its stop waits on that Chrome. The pids go into `daemon` as soon as
 * they are known, so the caller's cleanup finds the Chrome to kill however this ends.
 */
async function hangChromeOfWatchedDaemon(supervisor: Supervisor, daemon: { pid: number; chromePid: number }): Promise<void> {
  const client = await connectMcpClient();
  try {
    await client.callTool({ name: 'list_pages', arguments: {} });
    const watched = await waitFor(() => (supervisor.view('default').state === 'ready' ? supervisor.view('default') : undefined), 'the supervisor to watch the daemon');
    daemon.pid = watched.status?.pid ?? 0;
    const browser = watched.status?.browser;
    daemon.chromePid = browser?.kind === 'launched' ? (browser.pid ?? 0) : 0;
    expect(daemon.pid).toBeGreaterThan(0);
    expect(daemon.chromePid).toBeGreaterThan(0);
    process.kill(daemon.chromePid, 'SIGSTOP');
  } finally {
    await client.close();
  }
}

/** An MCP client on `tabmux mcp serve`, whose daemon, if it starts one, exits after IDLE_EXIT_MS idle. */
async function connectMcpClient(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath(), 'mcp', 'serve'],
    env: { ...inheritedEnv(), TABMUX_HOME: home, TABMUX_HEADLESS: '1', TABMUX_IDLE_EXIT_MS: String(IDLE_EXIT_MS) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'idle-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('TABMUX_')) {
      env[key] = value;
    }
  }
  return env;
}
