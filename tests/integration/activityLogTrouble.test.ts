import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../shared/activity.js';
import type { DaemonStatus } from '../../shared/model.js';
import { readActivityLog } from '../../electron/core/activity/readActivityLog.js';
import { profileActivityDir, type TabmuxPaths } from '../../electron/core/platform/paths.js';
import { removeSingletonFolder } from '../../electron/core/process/chromeHolding.js';
import { isProcessAlive, killProcessGroup } from '../../electron/core/process/processes.js';
import type { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { cliDriver, type CliDriver } from '../helpers/cliDriver.js';
import { readyDaemon } from '../helpers/readyDaemon.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';

/**
 * The activity log under trouble, on a daemon started as a process (the compiled CLI) with a real Chromium and the
 * real upstream: a call whose reply was seen survives a SIGKILL right after it; a full file system (a small tmpfs
 * mounted on the log's folder, which needs root) keeps the daemon serving, shows in status and loses no entry once
 * space returns; calls a `daemon stop` cuts off are `cancelled`.
 */

const QUICK = { function: '() => 1', waitForStableDom: false };

interface Rig {
  paths: TabmuxPaths;
  cli: CliDriver;
  client: DaemonClient;
  status: DaemonStatus;
  session: string;
  call: (args: Record<string, unknown>) => Promise<unknown>;
}

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

/** A daemon process on a fresh home (`prepare` runs first, on its paths), a connection to it and one session. */
async function startRig(prepare: (paths: TabmuxPaths) => void = () => undefined): Promise<Rig> {
  const { home, paths, cleanup } = makeTestHome();
  cleanups.push(cleanup);
  prepare(paths);
  const cli = cliDriver(home);
  await cli.ok(['daemon', 'start']);
  const client = await readyDaemon(paths);
  const status = await client.call('tabmux/status');
  cleanups.push(async () => {
    client.close();
    // Whatever still runs on this home: the daemon, then Chrome with its helper processes (its watchdog would, but later).
    const pids = [status.pid, status.chrome.pid].filter((pid): pid is number => pid !== null && isProcessAlive(pid));
    if (pids.includes(status.pid)) {
      process.kill(status.pid, 'SIGKILL');
    }
    killProcessGroup(status.chrome.pid ?? undefined, 'SIGKILL');
    await waitUntil(() => pids.every((pid) => !isProcessAlive(pid)), 'the test daemon and its Chrome to exit');
    // The temp folder a killed Chrome leaves, which its daemon, killed first, cannot remove.
    if (status.chrome.pid !== null && status.chrome.userDataDir !== null) {
      await removeSingletonFolder(status.chrome.userDataDir, status.chrome.pid);
    }
  });
  const session = (await client.call('tabmux/session.create', { label: 'trouble' })).id;
  const call = (args: Record<string, unknown>): Promise<unknown> => client.call('tabmux/call', { session, name: 'evaluate_script', arguments: args });
  return { paths, cli, client, status, session, call };
}

function entriesOf(paths: TabmuxPaths, session: string): Promise<ActivityEntry[]> {
  return readActivityLog(profileActivityDir(paths, 'default'), { session, limit: 10_000 }).then((result) => result.entries);
}

/** The numbers the calls sent (`() => N`), in the order the log has them. */
function numbersOf(entries: readonly ActivityEntry[]): number[] {
  return entries.flatMap((entry) => {
    const match = /^\(\) => (\d+)$/.exec(String(entry.args['function']));
    return match?.[1] === undefined ? [] : [Number(match[1])];
  });
}

describe('activity log under trouble', () => {
  it('keeps a call whose reply was seen right before the daemon was killed', async () => {
    const rig = await startRig();
    await rig.call(QUICK);
    // Killed the moment the reply is in: nothing the daemon meant to do later gets to run.
    await rig.call({ function: '() => 4242', waitForStableDom: false });
    process.kill(rig.status.pid, 'SIGKILL');
    await waitUntil(() => !isProcessAlive(rig.status.pid), 'the daemon to die');
    expect(numbersOf(await entriesOf(rig.paths, rig.session))).toEqual([1, 4242]);
  });

  it('logs calls a daemon stop cuts off as cancelled', async () => {
    const rig = await startRig();
    const slow = rig.call({ function: 'async () => { await new Promise((r) => setTimeout(r, 20000)); return 7; }', waitForStableDom: false }).catch((error: unknown) => error);
    await waitFor(async () => ((await rig.client.call('tabmux/status')).queue.some((entry) => entry.state === 'running') ? true : undefined), 'the slow call to run');
    await rig.cli.ok(['daemon', 'stop']);
    await slow;
    const entries = await entriesOf(rig.paths, rig.session);
    const cut = entries.find((entry) => String(entry.args['function']).includes('20000'));
    expect(cut?.outcome).toBe('cancelled');
    expect(cut?.error?.code).toBe('daemon_stopping');
  });

  const root = process.getuid?.() === 0 && process.platform === 'linux';

  it.skipIf(!root)('keeps serving on a full file system, says so in status, and loses no entry once space returns', async () => {
    let mounted = '';
    const rig = await startRig((paths) => {
      mounted = profileActivityDir(paths, 'default');
      mkdirSync(mounted, { recursive: true, mode: 0o700 });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mounted]);
      cleanups.push(() => {
        execFileSync('umount', ['-l', mounted]);
      });
    });
    await rig.call({ function: '() => 1', waitForStableDom: false });
    // Fill what is left of the file system.
    const filler = join(mounted, 'filler');
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(64 * 1024, 120);
    try {
      for (;;) {
        writeSync(fd, chunk);
      }
    } catch {
      // ENOSPC: full.
    } finally {
      closeSync(fd);
    }
    for (let n = 2; n <= 30; n++) {
      await rig.call({ function: `() => ${n}`, waitForStableDom: false });
    }
    const failing = await rig.client.call('tabmux/status');
    expect(failing.state).toBe('ready');
    expect(failing.activityLog?.error).toMatch(/ENOSPC|no space/i);
    expect(failing.activityLog?.pending).toBeGreaterThan(0);
    expect(await rig.cli.ok(['daemon', 'status'])).toMatch(/activity log: .*(ENOSPC|no space)/i);

    rmSync(filler);
    await rig.call({ function: '() => 31', waitForStableDom: false });
    await waitFor(async () => ((await rig.client.call('tabmux/status')).activityLog?.error === null ? true : undefined), 'the log to write again');
    await rig.call({ function: '() => 32', waitForStableDom: false });
    // The log as the daemon reads it, and as the files hold it (each call once, in order).
    const queried = (await rig.client.call('tabmux/log.query', { session: rig.session, limit: 1000 })).entries;
    const expected = Array.from({ length: 32 }, (_, i) => i + 1);
    expect(numbersOf(queried)).toEqual(expected);
    expect(numbersOf(await entriesOf(rig.paths, rig.session))).toEqual(expected);
    const segments = readdirSync(mounted).filter((name) => name.endsWith('.jsonl'));
    const text = segments.map((name) => readFileSync(join(mounted, name), 'utf8')).join('');
    expect(text.endsWith('\n')).toBe(true);
    expect((await rig.client.call('tabmux/status')).activityLog).toMatchObject({ error: null, pending: 0, dropped: 0 });
  });
});
