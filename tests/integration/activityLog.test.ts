import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../shared/activity.js';
import { readActivityLog } from '../../electron/core/activity/readActivityLog.js';
import { profileActivityDir } from '../../electron/core/platform/paths.js';
import { html, startTestDaemon, uidOf, type TestDaemon } from '../helpers/daemonFixture.js';
import { cliPath, runCli } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor, waitUntil } from '../helpers/waitFor.js';
import { isProcessAlive } from '../../electron/core/process/processes.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'electron', 'bin', 'tabmux.js');

/** Every file under a folder, recursively (symbolic links are not followed). */
function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      out.push(...allFiles(path));
    } else if (entry.isFile()) {
      out.push(path);
    }
  }
  return out;
}

const FORM = html(
  '<label>Password <input type="password" aria-label="Password"></label><label>Note <input aria-label="Note"></label><button onclick="document.title=\'sent\'">Send</button><a href="about:blank#popup" target="_blank">Popup</a>',
  'Login form',
);

describe('activity log on real flows', () => {
  let t: TestDaemon;
  const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
  const note = `note-${Math.random().toString(36).slice(2)}-typed`;
  let sessionId = '';
  /** How many entries the first test left in the log for its session. */
  let loggedCalls = 0;

  beforeAll(async () => {
    t = await startTestDaemon({ workers: 1 });
  });

  afterAll(async () => {
    await t.stop();
  });

  it('records each call with its outcome, pages and opened tabs, and redacts what was typed', async () => {
    const s = await t.session('logged');
    sessionId = s.id;
    await s.text('new_page', { url: FORM });
    const snapshot = await s.text('take_snapshot');
    await s.text('fill', { uid: uidOf(snapshot, 'textbox', 'Password'), value: password });
    await s.text('fill_form', { elements: [{ uid: uidOf(snapshot, 'textbox', 'Note'), value: note }] });
    const filled = await s.text('take_snapshot');
    expect(filled).toContain(note);
    // A token from the snapshot before the last one is refused by the router.
    const stale = await s.call('click', { uid: uidOf(snapshot, 'button', 'Send') });
    expect(stale.isError).toBe(true);
    await s.text('click', { uid: uidOf(filled, 'button', 'Send') });
    const denied = await s.call('navigate_page', { url: 'chrome://version' });
    expect(denied.isError).toBe(true);
    const refused = await s.call('evaluate_script', { function: '() => { throw new Error("thrown by the page script"); }' });
    expect(refused.isError).toBe(true);
    await s.text('navigate_page', { url: FORM });
    const clicked = await s.text('click', { uid: uidOf(await s.text('take_snapshot'), 'link', 'Popup') });
    // Upstream lists the popup in the click's answer when it opens within the click's wait for the page to settle; on
    // a loaded machine it can open later, and the router hands it over on the session's next call (by the browser's
    // opener id). Then that call's entry names it: list_pages is called until it is handed over.
    const handedOver = !clicked.includes('## Opened pages');
    if (handedOver) {
      await waitUntil(async () => (await s.text('list_pages', {})).includes('was opened by one of your pages'), 'the popup to be handed over');
    }

    // The in-flight call of a killed worker.
    const status = await s.client.call('tabmux/status');
    const upstreamPid = status.upstream.pid ?? 0;
    const slow = s.call('evaluate_script', { function: 'async () => { await new Promise((r) => setTimeout(r, 5000)); return 1; }', waitForStableDom: false });
    await waitFor(async () => ((await s.client.call('tabmux/status')).queue.some((entry) => entry.state === 'running' && entry.tool === 'evaluate_script') ? true : undefined), 'the slow call to run');
    process.kill(upstreamPid, 'SIGKILL');
    expect((await slow).isError).toBe(true);

    const { entries: all } = await s.client.call('tabmux/log.query', { session: s.id });
    loggedCalls = all.length;
    // The calls the test made, without the list_pages that waited for the popup's hand-over.
    const entries = all.filter((entry) => entry.tool !== 'list_pages');
    const byTool = entries.map((entry) => [entry.tool, entry.outcome, entry.error?.code ?? null]);
    expect(byTool).toEqual([
      ['new_page', 'ok', null],
      ['take_snapshot', 'ok', null],
      ['fill', 'ok', null],
      ['fill_form', 'ok', null],
      ['take_snapshot', 'ok', null],
      ['click', 'rejected', 'stale_token'],
      ['click', 'ok', null],
      ['navigate_page', 'rejected', 'url_denied'],
      ['evaluate_script', 'tool_error', null],
      ['navigate_page', 'ok', null],
      ['take_snapshot', 'ok', null],
      ['click', 'ok', null],
      ['evaluate_script', 'worker_crashed', 'upstream_unavailable'],
    ]);
    const [opened, , fill, fillForm, snapshotAfter] = entries;
    expect(opened?.pageBefore).toBeNull();
    expect(opened?.pageAfter?.url).toBe(FORM);
    expect(opened?.opened.map((page) => page.url)).toEqual([FORM]);
    expect(fill).toMatchObject({ args: { value: '[redacted]' }, redacted: ['value'], label: 'logged' });
    expect(fillForm).toMatchObject({ args: { elements: [{ value: '[redacted]' }] }, redacted: ['elements[0].value'] });
    expect(snapshotAfter?.summary).not.toContain(note);
    const refusedEntry = entries[8];
    expect(refusedEntry?.pageBefore?.url).toBe(FORM);
    const popups = all.filter((entry) => entry.opened.some((page) => page.url.startsWith('about:blank')));
    expect(popups.map((entry) => entry.tool)).toEqual([handedOver ? 'list_pages' : 'click']);
    expect(popups[0]?.opened).toHaveLength(1);
    for (const entry of all) {
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      expect(entry.session).toBe(s.id);
    }

    // A picture of the tab after each navigation; none after typing, whose picture would show what was typed.
    expect(entries.filter((entry) => entry.picture !== undefined).map((entry) => entry.tool)).toEqual(['new_page', 'navigate_page']);
    for (const entry of entries.filter((candidate) => candidate.picture !== undefined)) {
      const { data } = await s.client.call('tabmux/log.picture', { name: entry.picture ?? '' });
      expect(Buffer.from(data ?? '', 'base64').subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      const file = join(profileActivityDir({ configDir: join(t.home, 'config'), dataDir: join(t.home, 'data'), runtimeDir: join(t.home, 'run') }, 'default'), 'pictures', entry.picture ?? '');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect((await s.client.call('tabmux/log.picture', { name: 'never-taken.jpg' })).data).toBeNull();

    // The daemon filters by tool and outcome before it counts to the limit.
    const { entries: clicks } = await s.client.call('tabmux/log.query', { session: s.id, tools: ['click', 'fill'], outcomes: ['ok'], limit: 2 });
    expect(clicks.map((entry) => [entry.tool, entry.outcome])).toEqual([
      ['click', 'ok'],
      ['click', 'ok'],
    ]);
    const cli = await runCli(['log', '--session', s.id, '--outcome', 'rejected', '--outcome', 'worker_crashed', '--json'], { TABMUX_HOME: t.home });
    expect(cli.code, cli.stderr).toBe(0);
    expect((JSON.parse(cli.stdout) as ActivityEntry[]).map((entry) => entry.error?.code)).toEqual(['stale_token', 'url_denied', 'upstream_unavailable']);
  });

  it('follows new calls with tabmux log --follow', async () => {
    const child = spawn(process.execPath, [cliPath(), 'log', '--follow', '--json', '--session', sessionId, '--since', '1h'], { env: { ...process.env, TABMUX_HOME: t.home }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    try {
      // What the log held first, then the new call.
      await waitFor(() => (lines.length >= loggedCalls ? true : undefined), 'the logged calls');
      const control = await t.connect();
      expect((await control.call('tabmux/call', { session: sessionId, name: 'list_pages' })).isError).not.toBe(true);
      await waitFor(() => (lines.length > loggedCalls ? true : undefined), 'the followed call');
      const entries = lines.map((line) => JSON.parse(line) as ActivityEntry);
      expect(entries.at(-1)).toMatchObject({ session: sessionId, tool: 'list_pages', outcome: 'ok' });
      expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('keeps the entries after daemon stop, with no typed value in any file of the home', async () => {
    await t.stop(true);
    const dir = profileActivityDir({ configDir: join(t.home, 'config'), dataDir: join(t.home, 'data'), runtimeDir: join(t.home, 'run') }, 'default');
    const { entries } = await readActivityLog(dir, { session: sessionId, limit: 100 });
    expect(entries).toHaveLength(loggedCalls + 1);
    for (const file of readdirSync(dir)) {
      const stat = statSync(join(dir, file));
      expect(stat.mode & 0o777).toBe(stat.isDirectory() ? 0o700 : 0o600);
    }
    const leaks = allFiles(t.home).filter((file) => {
      const bytes = readFileSync(file);
      return bytes.includes(password) || bytes.includes(note);
    });
    expect(leaks).toEqual([]);

    // The CLI reads the files when the daemon is stopped.
    const cli = await runCli(['log', '--session', sessionId, '--json'], { TABMUX_HOME: t.home });
    expect(cli.code).toBe(0);
    const listed = JSON.parse(cli.stdout) as ActivityEntry[];
    expect(listed.map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id));
    const text = await runCli(['log', '--session', sessionId], { TABMUX_HOME: t.home });
    expect(text.stdout).toContain('rejected:stale_token');
    // Read from the files, filtered the same way.
    const navigations = await runCli(['log', '--session', sessionId, '--tool', 'navigate_page,new_page', '--json'], { TABMUX_HOME: t.home });
    expect((JSON.parse(navigations.stdout) as ActivityEntry[]).map((entry) => [entry.tool, entry.outcome])).toEqual([
      ['new_page', 'ok'],
      ['navigate_page', 'rejected'],
      ['navigate_page', 'ok'],
    ]);
    const wrong = await runCli(['log', '--outcome', 'okay'], { TABMUX_HOME: t.home });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--outcome takes ok, tool_error, rejected, cancelled, timed_out, worker_crashed, failed; got okay');
    const follow = await runCli(['log', '--follow'], { TABMUX_HOME: t.home });
    expect(follow.code).toBe(3);
    expect(follow.stderr).toContain('tabmux daemon start');
  });
});

describe('activity log across a SIGKILL and retention', () => {
  it('keeps written entries when the daemon is killed, and the next daemon appends after them', async () => {
    const { env, home, cleanup } = makeTestHome();
    const cliEnv = { ...process.env, ...env, TABMUX_HEADLESS: '1', TABMUX_WORKERS: '1' };
    const dir = join(home, 'data', 'profiles', 'default', 'activity');
    try {
      await run(process.execPath, [CLI, 'daemon', 'start'], { env: cliEnv });
      const session = (await run(process.execPath, [CLI, 'session', 'create', '--label', 'killed'], { env: cliEnv })).stdout.trim();
      for (let n = 0; n < 3; n++) {
        await run(process.execPath, [CLI, 'mcp', 'call', '--session', session, 'list_pages'], { env: cliEnv });
      }
      // Each entry is written before its reply: the files hold all three now.
      expect((await readActivityLog(dir, { session, limit: 10 })).entries).toHaveLength(3);
      const status = JSON.parse((await run(process.execPath, [CLI, 'daemon', 'status', '--json'], { env: cliEnv })).stdout) as { pid: number; chrome: { pid: number }; upstream: { pid: number } };
      process.kill(status.pid, 'SIGKILL');
      // Its worker goes with it; its Chrome waits for the next daemon to adopt it.
      await waitUntil(() => !isProcessAlive(status.upstream.pid), 'upstream to exit after the daemon');
      // A write the kill cut short leaves a partial line; it must not hide the entries around it.
      const segment = readdirSync(dir).sort().at(-1) ?? '';
      writeFileSync(join(dir, segment), '{"v":1,"id":"cut', { flag: 'a' });

      await run(process.execPath, [CLI, 'daemon', 'start'], { env: cliEnv });
      const adopted = JSON.parse((await run(process.execPath, [CLI, 'daemon', 'status', '--json'], { env: cliEnv })).stdout) as { chrome: { pid: number } };
      expect(adopted.chrome.pid).toBe(status.chrome.pid);
      await run(process.execPath, [CLI, 'mcp', 'call', '--session', (await run(process.execPath, [CLI, 'session', 'create'], { env: cliEnv })).stdout.trim(), 'list_pages'], { env: cliEnv });
      const all = JSON.parse((await run(process.execPath, [CLI, 'log', '--json'], { env: cliEnv })).stdout) as ActivityEntry[];
      expect(all.filter((entry) => entry.session === session)).toHaveLength(3);
      expect(all).toHaveLength(4);
      expect(all.map((entry) => entry.outcome)).toEqual(['ok', 'ok', 'ok', 'ok']);
    } finally {
      await run(process.execPath, [CLI, 'daemon', 'stop'], { env: cliEnv }).catch(() => undefined);
      cleanup();
    }
  });

  it('logs a call under way at the kill as cut off by it, once', async () => {
    const { env, cleanup } = makeTestHome();
    const cliEnv = { ...process.env, ...env, TABMUX_HEADLESS: '1', TABMUX_WORKERS: '1' };
    const status = async (): Promise<{ pid: number; upstream: { pid: number }; queue: { tool: string; state: string }[] }> =>
      JSON.parse((await run(process.execPath, [CLI, 'daemon', 'status', '--json'], { env: cliEnv })).stdout) as { pid: number; upstream: { pid: number }; queue: { tool: string; state: string }[] };
    try {
      await run(process.execPath, [CLI, 'daemon', 'start'], { env: cliEnv });
      const session = (await run(process.execPath, [CLI, 'session', 'create', '--label', 'cut'], { env: cliEnv })).stdout.trim();
      const slow = run(process.execPath, [CLI, 'mcp', 'call', '--session', session, 'evaluate_script', JSON.stringify({ function: '() => new Promise((resolve) => setTimeout(resolve, 60000))' })], { env: cliEnv }).catch(
        () => undefined,
      );
      await waitUntil(async () => (await status()).queue.some((entry) => entry.tool === 'evaluate_script' && entry.state === 'running'), 'the slow call to run');
      // The calls in flight are written a moment after they change (100 ms); a call younger than that may be missed.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const first = await status();
      process.kill(first.pid, 'SIGKILL');
      await waitUntil(() => !isProcessAlive(first.upstream.pid), 'upstream to exit after the daemon');
      await run(process.execPath, [CLI, 'daemon', 'start'], { env: cliEnv });
      await slow;
      const cut = (): Promise<ActivityEntry[]> =>
        run(process.execPath, [CLI, 'log', '--json', '--session', session], { env: cliEnv }).then(({ stdout }) =>
          (JSON.parse(stdout) as ActivityEntry[]).filter((entry) => entry.error?.code === 'daemon_crashed'),
        );
      const entries = await cut();
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ tool: 'evaluate_script', outcome: 'failed', label: 'cut', args: {} });
      expect(entries[0]?.error?.message).toMatch(/whether it took effect is unknown/);

      // The next crash, with nothing under way, logs nothing more.
      const second = await status();
      process.kill(second.pid, 'SIGKILL');
      await waitUntil(() => !isProcessAlive(second.upstream.pid), 'upstream to exit after the daemon');
      await run(process.execPath, [CLI, 'daemon', 'start'], { env: cliEnv });
      expect(await cut()).toHaveLength(1);
    } finally {
      await run(process.execPath, [CLI, 'daemon', 'stop'], { env: cliEnv }).catch(() => undefined);
      cleanup();
    }
  });

  it('trims the oldest entries by size and old segments by age', async () => {
    const { home } = makeTestHome();
    const dir = join(home, 'data', 'profiles', 'default', 'activity');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const oldSegment = join(dir, 'activity-000001.jsonl');
    writeFileSync(oldSegment, '', { mode: 0o600 });
    const monthAgo = new Date(Date.now() - 40 * 24 * 3600_000);
    utimesSync(oldSegment, monthAgo, monthAgo);
    const maxBytes = 12_000;
    const t = await startTestDaemon({ workers: 1, logMaxBytes: maxBytes, logMaxAgeMs: 24 * 3600_000 }, { home });
    try {
      expect(readdirSync(dir)).not.toContain('activity-000001.jsonl');
      const s = await t.session('many');
      await s.text('new_page', { url: html('<p>retention</p>', 'Retention') });
      for (let n = 0; n < 60; n++) {
        await s.text('list_pages');
      }
      const control = await t.connect();
      const { entries } = await control.call('tabmux/log.query', { session: s.id, limit: 1000 });
      expect(entries.length).toBeLessThan(61);
      expect(entries.length).toBeGreaterThan(5);
      expect(entries.at(-1)?.tool).toBe('list_pages');
      expect(entries.some((entry) => entry.tool === 'new_page')).toBe(false);
      const total = readdirSync(dir)
        .filter((file) => file.endsWith('.jsonl'))
        .reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
      expect(total).toBeLessThanOrEqual(maxBytes + 1200 + 2000);
    } finally {
      await t.stop();
    }
  });
});
