import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonStatus } from '../../shared/model.js';
import { pidFilePath, socketPath } from '../../electron/core/platform/paths.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { Supervisor } from '../../electron/core/supervisor/Supervisor.js';
import { cliDriver, tokenOf } from '../helpers/cliDriver.js';
import { html, uidOf } from '../helpers/daemonFixture.js';
import type { CliResult } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';
import { startMcpServeAgent, type McpServeAgent } from '../helpers/mcpServeAgent.js';

/**
 * Chrome outlives a daemon that dies: a daemon killed with SIGKILL leaves its Chrome running for the grace period,
 * and the next daemon adopts it, tabs and all, and restores its sessions from their journal; a Chrome nobody adopts is closed once the grace period is over, the
 * way a user quits it. Real processes (the compiled CLI), a real Chromium and the real upstream; Linux-only, as what
 * runs is read from /proc.
 */

const linux = process.platform === 'linux';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface PageTarget {
  id: string;
  type: string;
  title: string;
}

/** The browser's page targets, from its own DevTools endpoint (not from anything tabmux or a page says). */
async function pageTargets(port: number | null): Promise<PageTarget[]> {
  const response = await fetch(`http://127.0.0.1:${String(port)}/json/list`);
  const targets = (await response.json()) as PageTarget[];
  return targets.filter((target) => target.type === 'page');
}

function expectOk(run: CliResult, what: string): void {
  expect(run.code, `${what} exited ${String(run.code)}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
}

async function stopAll(tabmux: ReturnType<typeof cliDriver>['tabmux'], pids: Set<number>): Promise<void> {
  await tabmux(['daemon', 'stop']);
  for (const pid of pids) {
    if (isProcessAlive(pid)) {
      process.kill(-pid, 'SIGKILL');
    }
  }
}

/**
 * A TABMUX_HOME of the describe block's own, the CLI on it and the Chromes the block saw, all stopped and removed
 * after the block.
 */
function ownHome(): ReturnType<typeof makeTestHome> & ReturnType<typeof cliDriver> & { chromes: Set<number> } {
  const home = makeTestHome();
  const driver = cliDriver(home.home);
  const chromes = new Set<number>();
  afterAll(async () => {
    await stopAll(driver.tabmux, chromes);
    home.cleanup();
  });
  return { ...home, ...driver, chromes };
}

describe.runIf(linux)('a daemon killed with SIGKILL', () => {
  const { tabmux, json, newSession, ok, chromes } = ownHome();

  it.each([0, 100, 1000])('leaves its Chrome to a daemon started %i ms later, which adopts it with its sessions and tabs', async (delay) => {
    const before = await json<DaemonStatus>(['daemon', 'start']);
    const chromePid = before.chrome.pid;
    expect(chromePid).not.toBeNull();
    chromes.add(chromePid ?? -1);
    const session = await newSession();
    const title = `Kept${delay}`;
    await ok(['mcp', 'call', '--session', session, 'navigate_page', JSON.stringify({ url: html('<label>Note <input id="field"></label>', title) })]);
    const typed = `typed before the crash ${delay}`;
    await ok(['mcp', 'call', '--session', session, 'fill', JSON.stringify({ uid: tokenOf(await ok(['mcp', 'call', '--session', session, 'take_snapshot']), 'textbox', 'Note'), value: typed })]);
    const tab = (await pageTargets(before.chrome.port)).find((target) => target.title === title);
    expect(tab).toBeDefined();

    process.kill(before.pid, 'SIGKILL');
    await waitUntil(() => !isProcessAlive(before.pid), 'the killed daemon to be gone');
    await sleep(delay);
    const again = await tabmux(['daemon', 'start', '--json']);
    expectOk(again, `daemon start ${delay} ms after SIGKILL`);
    const fresh = JSON.parse(again.stdout) as DaemonStatus & { started: boolean };
    expect(fresh).toMatchObject({ started: true, state: 'ready' });
    expect(fresh.pid).not.toBe(before.pid);
    expect(fresh.chrome.pid).toBe(chromePid);
    expect((await pageTargets(fresh.chrome.port)).map((target) => target.id)).toContain(tab?.id);
    expect(fresh.sessions.map((s) => s.id)).toContain(session);

    // The same session goes on in the same tab, with what was typed there; it is told its uid tokens are stale.
    const value = await ok(['mcp', 'call', '--session', session, 'evaluate_script', JSON.stringify({ function: '() => [document.title, document.getElementById("field").value]' })]);
    expect(value).toContain(title);
    expect(value).toContain(typed);
    expect(value).toMatch(/daemon restarted/);
    expect(value).toMatch(/snapshot/);
    expectOk(await tabmux(['session', 'close', '--session', session]), 'closing the restored session');
  });
});

describe.runIf(linux)('a daemon killed the moment it replied', () => {
  const { paths, json, chromes } = ownHome();

  /** One request on the daemon's socket, and a SIGKILL in the same turn as its reply arrives. */
  async function killedAfter<T>(pid: number, ask: (client: DaemonClient) => Promise<T>): Promise<T> {
    const client = await DaemonClient.connect(socketPath(paths, 'default'), 'test');
    try {
      const answer = await ask(client);
      process.kill(pid, 'SIGKILL');
      return answer;
    } finally {
      client.close();
    }
  }

  it('has on file what it told: the session it created and the tab it opened are restored', async () => {
    const first = await json<DaemonStatus>(['daemon', 'start']);
    chromes.add(first.chrome.pid ?? -1);
    const created = await killedAfter(first.pid, (client) => client.call('tabmux/session.create', { label: 'told' }));
    await waitUntil(() => !isProcessAlive(first.pid), 'the killed daemon to be gone');

    const second = await json<DaemonStatus>(['daemon', 'start']);
    expect(second.chrome.pid).toBe(first.chrome.pid);
    expect(second.sessions.map((s) => s.id)).toContain(created.id);
    const opened = await killedAfter(second.pid, (client) => client.call('tabmux/session.newPage', { session: created.id, url: html('<p>opened</p>', 'Opened') }));
    await waitUntil(() => !isProcessAlive(second.pid), 'the killed daemon to be gone');

    const third = await json<DaemonStatus>(['daemon', 'start']);
    expect(third.chrome.pid).toBe(first.chrome.pid);
    const restored = third.sessions.find((s) => s.id === created.id);
    expect(restored?.pages.map((page) => page.title)).toContain('Opened');
    expect(opened.pageId).not.toBeNull();
  });
});

describe.runIf(linux)('a Chrome nobody adopts', () => {
  const { home, cleanup } = makeTestHome();
  const { tabmux, json, newSession, ok } = cliDriver(home);
  const chromes = new Set<number>();
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('<!doctype html><title>Cookie</title>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
  });

  afterAll(async () => {
    await stopAll(tabmux, chromes);
    await new Promise((resolve) => server.close(resolve));
    cleanup();
  });

  it('is closed once the grace period is over, the way a user quits it: a cookie set just before is kept', async () => {
    const grace = { TABMUX_ORPHAN_GRACE_MS: '1000' };
    const before = JSON.parse(await ok(['daemon', 'start', '--json'], grace)) as DaemonStatus;
    const chromePid = before.chrome.pid ?? -1;
    chromes.add(chromePid);
    const session = await newSession();
    await ok(['mcp', 'call', '--session', session, 'navigate_page', JSON.stringify({ url: origin })]);
    await ok(['mcp', 'call', '--session', session, 'evaluate_script', JSON.stringify({ function: '() => { document.cookie = "kept=yes; max-age=86400"; return document.cookie; }' })]);

    process.kill(before.pid, 'SIGKILL');
    await waitUntil(() => !isProcessAlive(chromePid), 'the orphaned Chrome to be closed after the grace period', 30_000);

    const fresh = await json<DaemonStatus>(['daemon', 'start']);
    chromes.add(fresh.chrome.pid ?? -1);
    expect(fresh.chrome.pid).not.toBe(chromePid);
    const other = await newSession();
    await ok(['mcp', 'call', '--session', other, 'navigate_page', JSON.stringify({ url: origin })]);
    const cookie = await ok(['mcp', 'call', '--session', other, 'evaluate_script', JSON.stringify({ function: '() => document.cookie' })]);
    expect(cookie).toContain('kept=yes');
  });
});

/** An agent as MCP clients run one, on this test's home; tabmux's settings come from the test alone. */
function startAgent(name: string, env: Record<string, string>, extraArgs: string[] = []): Promise<McpServeAgent> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith('TABMUX_')));
  return startMcpServeAgent({ name, env: { ...inherited, ...env }, args: extraArgs });
}

describe.runIf(linux).each(['killed with SIGKILL', 'restarted with tabmux daemon restart'])('agents on mcp serve when their daemon is %s', (how) => {
  const { home, env, cleanup } = makeTestHome();
  const { tabmux, json } = cliDriver(home);
  const chromes = new Set<number>();
  const agents: McpServeAgent[] = [];
  const killed = how.includes('SIGKILL');

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.client.close().catch(() => undefined)));
    await stopAll(tabmux, chromes);
    cleanup();
  });

  it('each goes on in its own session and tab with its typed text, on the same Chrome', async () => {
    const agentEnv = { ...env, TABMUX_HEADLESS: '1' };
    for (const name of ['agent-a', 'agent-b', 'agent-c']) {
      agents.push(await startAgent(name, agentEnv));
    }
    const typed = (index: number): string => `draft of agent ${index}`;
    await Promise.all(
      agents.map(async (agent, index) => {
        const opened = await agent.call('navigate_page', { url: html('<label>Note <input id="field"></label>', `Agent${index}`) });
        expect(opened.isError, opened.text).toBe(false);
        const snapshot = await agent.call('take_snapshot');
        const filled = await agent.call('fill', { uid: uidOf(snapshot.text, 'textbox', 'Note'), value: typed(index) });
        expect(filled.isError, filled.text).toBe(false);
      }),
    );
    const before = await json<DaemonStatus>(['daemon', 'status']);
    chromes.add(before.chrome.pid ?? -1);
    expect(before.sessions).toHaveLength(3);

    /** Agents whose restart note came with a call before the one checked below. */
    const noted = new Set<number>();
    if (killed) {
      const [first, second] = agents;
      if (!first || !second) {
        throw new Error('no agents');
      }
      // A call in flight when the daemon dies fails once, saying it may or may not have run and that tabmux recovers
      // on its own; a read-only one (wait_for) is run again on the daemon that comes back, and succeeds.
      const inFlight = first.call('evaluate_script', { function: '() => new Promise((resolve) => setTimeout(resolve, 60000))' });
      await second.call('evaluate_script', { function: '() => { setTimeout(() => document.body.append("arrived later"), 6000); return true; }' });
      const readOnly = second.call('wait_for', { text: ['arrived later'], timeout: 60_000 });
      // Killed once the daemon reports both calls running (the text is still seconds away).
      await waitUntil(async () => {
        const { queue } = await json<DaemonStatus>(['daemon', 'status']);
        return ['evaluate_script', 'wait_for'].every((tool) => queue.some((entry) => entry.tool === tool && entry.state === 'running'));
      }, 'both calls to run');
      process.kill(before.pid, 'SIGKILL');
      const failed = await inFlight;
      expect(failed.isError, first.log()).toBe(true);
      expect(failed.text).toMatch(/may or may not have run/);
      expect(failed.text).toMatch(/reconnects on its own/);
      expect(failed.text).not.toMatch(/daemon stop|quit that Chrome/);
      const rerun = await readOnly;
      expect(rerun.isError, `${rerun.text}\n${second.log()}`).toBe(false);
      expect(rerun.text).toContain('arrived later');
      expect(rerun.text).toMatch(/daemon restarted/);
      noted.add(1);
    } else {
      const [first, second, third] = agents;
      if (!first || !second || !third) {
        throw new Error('no agents');
      }
      // A restart lets a call under way finish and answers it; one still running when its wait is over is cut off,
      // saying it may or may not have run. A call that had not started yet (queued behind its session's running one)
      // is sent again by the bridge to the next daemon, where it runs once.
      const finishing = first.call('evaluate_script', { function: '() => new Promise((resolve) => setTimeout(() => resolve("finished " + document.title), 3000))' });
      const endless = second.call('evaluate_script', { function: '() => new Promise((resolve) => setTimeout(resolve, 60000))' });
      const ahead = third.call('evaluate_script', { function: '() => new Promise((resolve) => setTimeout(() => resolve("ahead done"), 2000))' });
      const behind = third.call('evaluate_script', { function: '() => { window.runs = (window.runs ?? 0) + 1; return "runs " + window.runs; }' });
      // One the agent cancels while the restart holds it back is not sent to the next daemon.
      const abort = new AbortController();
      const withdrawn = third.client
        .callTool({ name: 'evaluate_script', arguments: { function: '() => { window.withdrawnRan = true; return 1; }' } }, undefined, { signal: abort.signal })
        .then(() => 'answered', () => 'aborted');
      await waitUntil(async () => {
        const { queue } = await json<DaemonStatus>(['daemon', 'status']);
        const running = queue.filter((entry) => entry.tool === 'evaluate_script' && entry.state === 'running');
        return running.length === 3 && queue.filter((entry) => entry.state === 'queued').length === 2;
      }, 'three calls to run and two to wait');
      const restarting = tabmux(['daemon', 'restart', '--json']);
      await waitUntil(() => (third.log().match(/did not run: the daemon is restarting/g) ?? []).length === 2, 'both waiting calls to be held back by the restart');
      abort.abort();
      expect(await withdrawn).toBe('aborted');
      const restart = await restarting;
      expectOk(restart, 'daemon restart');
      expect(JSON.parse(restart.stdout)).toMatchObject({ restarted: true, state: 'ready' });
      const finished = await finishing;
      expect(finished.isError, `${finished.text}\n${first.log()}`).toBe(false);
      expect(finished.text).toContain('finished Agent0');
      const cut = await endless;
      expect(cut.isError, second.log()).toBe(true);
      expect(cut.text).toMatch(/may or may not have run/);
      const [aheadResult, behindResult] = await Promise.all([ahead, behind]);
      expect(aheadResult.isError, `${aheadResult.text}\n${third.log()}`).toBe(false);
      expect(aheadResult.text).toContain('ahead done');
      expect(behindResult.isError, `${behindResult.text}\n${third.log()}`).toBe(false);
      expect(behindResult.text).toContain('runs 1');
      expect(behindResult.text).toMatch(/daemon restarted/);
      noted.add(2);
      expect((await third.call('evaluate_script', { function: '() => String(window.withdrawnRan)' })).text).toContain('"undefined"');
    }

    const after = await Promise.all(agents.map((agent) => agent.call('evaluate_script', { function: '() => [document.title, document.getElementById("field").value]' })));
    after.forEach((result, index) => {
      expect(result.isError, `${result.text}\n${agents[index]?.log() ?? ''}`).toBe(false);
      expect(result.text).toContain(`Agent${index}`);
      expect(result.text).toContain(typed(index));
      if (!noted.has(index)) {
        expect(result.text).toMatch(/daemon restarted/);
      }
    });
    const fresh = await json<DaemonStatus>(['daemon', 'status']);
    expect(fresh.pid).not.toBe(before.pid);
    expect(fresh.chrome.pid).toBe(before.chrome.pid);
    expect(fresh.sessions.map((session) => session.id).sort()).toEqual(before.sessions.map((session) => session.id).sort());
    expect(fresh.sessions.every((session) => session.owned)).toBe(true);
  });
});

describe.runIf(linux)('mcp call and mcp batch when their daemon restarts', () => {
  const { home, tabmux, json, newSession, ok, chromes } = ownHome();

  it('a call under way is answered, and one that had not started runs once on the next daemon', async () => {
    // One worker, so a second session's call waits behind the first's (a session takes one command at a time).
    await ok(['daemon', 'start'], { TABMUX_WORKERS: '1' });
    const [busy, session, batched] = [await newSession('busy'), await newSession('scripted'), await newSession('batched')];
    await ok(['mcp', 'call', '-s', session, 'navigate_page', JSON.stringify({ url: html('<p>Counter</p>', 'Counter') })]);
    await ok(['mcp', 'call', '-s', batched, 'navigate_page', JSON.stringify({ url: html('<p>Batch</p>', 'Batch') })]);
    const script = join(home, 'steps.json');
    writeFileSync(script, JSON.stringify([{ tool: 'evaluate_script', args: { function: '() => { window.runs = (window.runs ?? 0) + 1; return "batch runs " + window.runs; }' } }]));
    const before = await json<DaemonStatus>(['daemon', 'status']);
    chromes.add(before.chrome.pid ?? -1);
    const running = tabmux(['mcp', 'call', '-s', busy, 'evaluate_script', JSON.stringify({ function: '() => new Promise((resolve) => setTimeout(() => resolve("first done"), 3000))' })]);
    await waitUntil(async () => (await json<DaemonStatus>(['daemon', 'status'])).queue.some((entry) => entry.state === 'running'), 'the first call to run');
    const queued = tabmux(['mcp', 'call', '-s', session, 'evaluate_script', JSON.stringify({ function: '() => { window.runs = (window.runs ?? 0) + 1; return "runs " + window.runs; }' })]);
    const batch = tabmux(['mcp', 'batch', '-s', batched, '--script', script]);
    await waitUntil(async () => (await json<DaemonStatus>(['daemon', 'status'])).queue.filter((entry) => entry.state === 'queued').length === 2, 'the other two calls to wait');
    const restart = await tabmux(['daemon', 'restart']);
    expectOk(restart, 'daemon restart');
    // Whoever restarts is told why it may take a moment: the call under way (the two waiting ones do not count).
    expect(restart.stderr).toContain('letting 1 call under way finish first (up to 10 s)');
    const first = await running;
    expectOk(first, 'the call under way');
    expect(first.stdout).toContain('first done');
    const second = await queued;
    expectOk(second, 'the call that waited');
    expect(second.stdout).toContain('runs 1');
    const batchRun = await batch;
    expectOk(batchRun, 'the batch that waited');
    expect(batchRun.stdout).toContain('batch runs 1');
    expect((await json<DaemonStatus>(['daemon', 'status'])).pid).not.toBe(before.pid);
    // It ran once: the page's count says so.
    expect(await ok(['mcp', 'call', '-s', session, 'evaluate_script', JSON.stringify({ function: '() => window.runs' })])).toContain('1');
  });
});

describe.runIf(linux)("the tray's Restart", () => {
  const { home, paths, cleanup } = makeTestHome();
  const { tabmux, json, newSession, ok } = cliDriver(home);
  const chromes = new Set<number>();
  const saved = { home: process.env['TABMUX_HOME'], headless: process.env['TABMUX_HEADLESS'] };
  const supervisor = new Supervisor({ paths, pollIntervalMs: 300 });

  beforeAll(() => {
    // The supervisor starts daemons with this process's environment.
    process.env['TABMUX_HOME'] = home;
    process.env['TABMUX_HEADLESS'] = '1';
  });

  afterAll(async () => {
    await supervisor.dispose({ stopDaemons: true });
    for (const [name, value] of [['TABMUX_HOME', saved.home], ['TABMUX_HEADLESS', saved.headless]] as const) {
      if (value === undefined) {
        Reflect.deleteProperty(process.env, name);
      } else {
        process.env[name] = value;
      }
    }
    await stopAll(tabmux, chromes);
    cleanup();
  });

  it('keeps Chrome, the sessions and their tabs, as tabmux daemon restart does', async () => {
    const before = await json<DaemonStatus>(['daemon', 'start']);
    chromes.add(before.chrome.pid ?? -1);
    const session = await newSession();
    await ok(['mcp', 'call', '--session', session, 'navigate_page', JSON.stringify({ url: html('<p>kept</p>', 'TrayKept') })]);
    await supervisor.start();
    await waitFor(() => (supervisor.view('default').state === 'ready' ? true : undefined), 'the supervisor to see the daemon');

    await supervisor.restartProfile('default');
    const back = await waitFor(
      () => {
        const view = supervisor.view('default');
        return view.state === 'ready' && view.status && view.status.pid !== before.pid ? view.status : undefined;
      },
      'the restarted daemon',
      60_000,
    );
    expect(back.chrome.pid).toBe(before.chrome.pid);
    expect(back.sessions.map((info) => info.id)).toContain(session);
    expect(await ok(['mcp', 'call', '--session', session, 'evaluate_script', JSON.stringify({ function: '() => document.title' })])).toContain('TrayKept');
  });
});

describe.runIf(linux)('a daemon killed before it recorded its Chrome', () => {
  const { paths, tabmux, json, chromes } = ownHome();

  it('leaves a Chrome that the next start stops rather than failing with profile_locked', async () => {
    const before = await json<DaemonStatus>(['daemon', 'start']);
    const chromePid = before.chrome.pid ?? -1;
    chromes.add(chromePid);
    process.kill(before.pid, 'SIGKILL');
    await waitUntil(() => !isProcessAlive(before.pid), 'the killed daemon to be gone');
    // As a daemon killed while its Chrome started leaves it: the pid file does not name that Chrome yet.
    const file = pidFilePath(paths, 'default');
    const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...record, chromePid: null, chromePort: null, watchdogPid: null }));

    const again = await tabmux(['daemon', 'start', '--json']);
    expectOk(again, 'daemon start beside the unrecorded Chrome');
    const fresh = JSON.parse(again.stdout) as DaemonStatus;
    chromes.add(fresh.chrome.pid ?? -1);
    expect(fresh.state).toBe('ready');
    expect(fresh.chrome.pid).not.toBe(chromePid);
    expect(isProcessAlive(chromePid)).toBe(false);
  });
});

describe.runIf(linux)('an agent in session_id mode when its daemon is killed', () => {
  const { home, env, cleanup } = makeTestHome();
  const { tabmux, json } = cliDriver(home);
  const chromes = new Set<number>();
  let agent: McpServeAgent | undefined;

  afterAll(async () => {
    await agent?.client.close().catch(() => undefined);
    await stopAll(tabmux, chromes);
    cleanup();
  });

  it('goes on in the session its session_id names, in the same tab with its typed text', async () => {
    agent = await startAgent('framework', { ...env, TABMUX_HEADLESS: '1' }, ['--session-arg']);
    const ids = { session_id: 'worker-1' };
    const opened = await agent.call('navigate_page', { ...ids, url: html('<label>Note <input id="field"></label>', 'Framework') });
    expect(opened.isError, opened.text).toBe(false);
    const snapshot = await agent.call('take_snapshot', ids);
    expect((await agent.call('fill', { ...ids, uid: uidOf(snapshot.text, 'textbox', 'Note'), value: 'framework draft' })).isError).toBe(false);
    const before = await json<DaemonStatus>(['daemon', 'status']);
    chromes.add(before.chrome.pid ?? -1);

    process.kill(before.pid, 'SIGKILL');
    await waitUntil(() => !isProcessAlive(before.pid), 'the killed daemon to be gone');
    const read = { ...ids, function: '() => [document.title, document.getElementById("field").value]' };
    let after = await agent.call('evaluate_script', read);
    if (after.isError) {
      // The bridge may send this call before it has seen the connection go: then it is the one cut off, once.
      expect(after.text, agent.log()).toMatch(/may or may not have run/);
      after = await agent.call('evaluate_script', read);
    }
    expect(after.isError, `${after.text}\n${agent.log()}`).toBe(false);
    expect(after.text).toContain('Framework');
    expect(after.text).toContain('framework draft');
    const fresh = await json<DaemonStatus>(['daemon', 'status']);
    expect(fresh.sessions.map((session) => session.id)).toEqual(before.sessions.map((session) => session.id));
  });
});
