import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../shared/activity.js';
import { cliDriver } from '../helpers/cliDriver.js';
import { cliPath } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor } from '../helpers/waitFor.js';

/**
 * `tabmux log --follow` as a person leaves it running in a terminal: it follows on across `daemon restart` and across
 * a daemon killed with SIGKILL that an agent's next call brings back, with each call printed once, and ends when the
 * daemon is stopped. Separate daemon processes, real Chromium and upstream.
 */

const { home, cleanup } = makeTestHome();
const { ok, json, tabmux } = cliDriver(home);
let session = '';
let follower: ChildProcess | undefined;
const lines: string[] = [];
let stderr = '';
let exited: Promise<number | null> | undefined;

beforeAll(async () => {
  await ok(['daemon', 'start']);
  session = (await ok(['session', 'create', '--label', 'followed'])).trim();
  await ok(['mcp', 'call', '--session', session, 'list_pages']);
  follower = spawn(process.execPath, [cliPath(), 'log', '--follow', '--json', '--session', session], {
    env: { ...process.env, TABMUX_HOME: home, TABMUX_HEADLESS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = follower;
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor(() => (lines.length >= 1 ? true : undefined), 'the logged call');
}, 60_000);

afterAll(async () => {
  follower?.kill('SIGKILL');
  await tabmux(['daemon', 'stop']);
  cleanup();
});

function entries(): ActivityEntry[] {
  return lines.map((line) => JSON.parse(line) as ActivityEntry);
}

async function callAndSee(tool: string, args: object = {}): Promise<void> {
  const before = lines.length;
  await ok(['mcp', 'call', '--session', session, tool, JSON.stringify(args)]);
  await waitFor(() => (entries().slice(before).some((entry) => entry.tool === tool) ? true : undefined), `the followed ${tool}`);
}

describe('tabmux log --follow', () => {
  it('follows on across daemon restart, each call once', async () => {
    await callAndSee('list_pages');
    await ok(['daemon', 'restart']);
    await callAndSee('take_snapshot');
    expect(stderr).toContain('the daemon for profile default is restarting; following on once it is back');
    expect(follower?.exitCode).toBeNull();
    const ids = entries().map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(entries().map((entry) => entry.tool)).toEqual(['list_pages', 'list_pages', 'take_snapshot']);
  });

  it('follows on after the daemon is killed and an agent brings it back, with the call that brought it', async () => {
    const { pid } = await json<{ pid: number }>(['daemon', 'status']);
    process.kill(pid, 'SIGKILL');
    // The agent's next call starts a daemon on demand, which adopts Chrome and the session.
    await callAndSee('list_pages');
    expect(stderr).toContain('lost the daemon for profile default; following on if it is back within 10 s');
    expect(follower?.exitCode).toBeNull();
    const ids = entries().map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(entries().map((entry) => entry.tool)).toEqual(['list_pages', 'list_pages', 'take_snapshot', 'list_pages']);
  });

  it('ends, exit 0, when the daemon is stopped', async () => {
    const before = stderr;
    await ok(['daemon', 'stop']);
    expect(await exited).toBe(0);
    // A stop is told from a restart: nothing is waited for.
    expect(stderr.slice(before.length)).toBe('');
  });
});
