import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DaemonStatus, SessionInfo, TabInfo } from '../../shared/model.js';
import type { ToolInfo } from '../../shared/protocol.js';
import { alive, cliDriver, tokenOf } from '../helpers/cliDriver.js';
import { html } from '../helpers/daemonFixture.js';
import { makeTestHome } from '../helpers/testHome.js';

/**
 * The public CLI contract, driven the way scripts use it: the compiled `tabmux` bin in child processes, a fresh
 * TABMUX_HOME, a real Chromium and the real upstream. One daemon (the default profile) serves the whole file, from
 * its start to its stop. Profile commands are in cliProfile.test.ts.
 */

const SESSION_LINE = /^sess-[0-9a-f]{16}\n$/;

const { home, cleanup } = makeTestHome();
const { tabmux, ok, json, newSession } = cliDriver(home);

const FORM = html('<button onclick="document.title = \'clicked\'">Go</button><button>Stop</button>', 'Form');

let status: DaemonStatus;

afterAll(async () => {
  await tabmux(['daemon', 'stop']);
  cleanup();
});

describe('tabmux daemon', () => {
  it('status exits 3 when no daemon runs', async () => {
    const text = await tabmux(['daemon', 'status']);
    expect(text.code).toBe(3);
    expect(text.stdout).toMatch(/not running/);
    const asJson = await tabmux(['daemon', 'status', '--json']);
    expect(asJson.code).toBe(3);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ profile: 'default', state: 'stopped' });
  });

  it('start returns once the daemon accepts calls, and a second start is a no-op', async () => {
    const started = await tabmux(['daemon', 'start']);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^started: profile default, daemon pid \d+, chrome pid \d+ port \d+/);
    // Nothing else has to wait: the very next command gets an answer.
    status = await json<DaemonStatus>(['daemon', 'status']);
    expect(status.state).toBe('ready');

    const again = await tabmux(['daemon', 'start', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ started: false, pid: status.pid });
    expect((await ok(['daemon', 'start'])).startsWith('already running')).toBe(true);
  });

  it('status --json shows Chrome, the upstream child, sessions and the queue', () => {
    expect(status).toMatchObject({ profile: 'default', sessions: [], queue: [] });
    expect(status.chrome.pid).toEqual(expect.any(Number));
    expect(status.chrome.port).toEqual(expect.any(Number));
    expect(status.upstream.pid).toEqual(expect.any(Number));
    expect(alive(status.pid)).toBe(true);
    expect(alive(status.chrome.pid!)).toBe(true);
    expect(alive(status.upstream.pid!)).toBe(true);
    expect(status.chrome.userDataDir).toBe(join(home, 'data', 'profiles', 'default', 'chrome'));
    const socket = join(home, 'run', 'default.sock');
    expect(status.socketPath).toBe(socket);
    expect(lstatSync(socket).mode & 0o777).toBe(0o600);
    expect(existsSync(join(home, 'run', 'default.pid'))).toBe(true);
  });

  it('starts the daemon with malloc set for a long-lived process, and its Chrome and workers as they were', () => {
    // Linux (glibc) reads it at a process's start; see electron/core/lifecycle/daemonEnv.ts. glibc cuts the
    // variable at each ':' as it reads it, in the process's own copy, so /proc shows the settings after the first as
    // entries of their own: they are joined back.
    const tunablesOf = (pid: number): string | undefined => {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const at = environ.findIndex((entry) => entry.startsWith('GLIBC_TUNABLES='));
      if (at < 0) {
        return undefined;
      }
      const rest = environ.slice(at + 1);
      const cut = rest.findIndex((entry) => !entry.startsWith('glibc.'));
      return [environ[at], ...rest.slice(0, cut < 0 ? rest.length : cut)].join(':');
    };
    expect(tunablesOf(status.pid)).toBe('GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2');
    expect(tunablesOf(status.upstream.pid!)).toBeUndefined();
    expect(tunablesOf(status.chrome.pid!)).toBeUndefined();
  });

  it('status says how much memory the daemon holds', async () => {
    expect(await ok(['daemon', 'status'])).toMatch(/^daemon memory: \d+\.\d MiB resident \(heap \d+\.\d MiB in use, \d+\.\d MiB young generation, \d+\.\d MiB in buffers\)$/m);
  });
});

describe('tabmux session and mcp', () => {
  let a: string;
  let b: string;

  it('session create prints the new id alone on stdout', async () => {
    const plain = await tabmux(['session', 'create']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(SESSION_LINE);
    expect(plain.stderr).toBe('');
    const labelled = await tabmux(['session', 'create', '--label', 'agent b']);
    expect(labelled.stdout).toMatch(SESSION_LINE);
    a = plain.stdout.trim();
    b = labelled.stdout.trim();
    expect(a).not.toBe(b);
    // --json prints the whole session, as the daemon describes it.
    const described = await json<SessionInfo>(['session', 'create', '--label', 'described']);
    expect(described).toMatchObject({ label: 'described', owned: false, paused: false, pages: [], currentPageId: null });
    expect(`${described.id}\n`).toMatch(SESSION_LINE);
    await ok(['session', 'close', '--session', described.id]);
  });

  it('session list --json lists the sessions with their labels', async () => {
    const sessions = await json<SessionInfo[]>(['session', 'list']);
    expect(sessions.map((session) => session.id).sort()).toEqual([a, b].sort());
    expect(sessions.find((session) => session.id === a)).toMatchObject({ label: null, owned: false, pages: [] });
    expect(sessions.find((session) => session.id === b)).toMatchObject({ label: 'agent b', owned: false });
    const text = await ok(['session', 'list']);
    expect(text).toContain(a);
    expect(text).toContain('agent b');
  });

  it('mcp list shows the tools as agents see them, without pageId on page tools', async () => {
    const tools = await json<ToolInfo[]>(['mcp', 'list']);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['click', 'take_snapshot', 'evaluate_script', 'navigate_page', 'new_page', 'list_pages']));
    for (const tool of tools) {
      const properties = Object.keys(tool.inputSchema.properties ?? {});
      if (tool.name === 'select_page' || tool.name === 'close_page') {
        expect(properties).toContain('pageId');
      } else {
        expect(properties, tool.name).not.toContain('pageId');
        expect(tool.inputSchema.required ?? [], tool.name).not.toContain('pageId');
      }
    }
    expect(tools.find((tool) => tool.name === 'click')?.inputSchema.required).toContain('uid');
    const text = await ok(['mcp', 'list']);
    expect(text).toMatch(/^click\(uid, /m);
    expect(text).toMatch(/^take_snapshot\(/m);
    const withPageId = text.split('\n').filter((line) => /\bpageId\b/.test(line));
    expect(withPageId.map((line) => line.slice(0, line.indexOf('(')))).toEqual(['close_page', 'select_page']);
  });

  it('mcp call prints the result text and exits 0', async () => {
    const navigated = await tabmux(['mcp', 'call', '--session', a, 'navigate_page', JSON.stringify({ url: FORM })]);
    expect(navigated.code).toBe(0);
    expect(navigated.stdout).toMatch(/Successfully navigated/);
    expect(navigated.stderr).toBe('');
    const snapshot = await tabmux(['mcp', 'call', '--session', a, 'take_snapshot']);
    expect(snapshot.code).toBe(0);
    expect(snapshot.stdout).toMatch(new RegExp(`uid=u:${a.slice(5, 13)}:\\d+:\\S+ button "Go"`));
    const go = tokenOf(snapshot.stdout, 'button', 'Go');
    expect(await ok(['mcp', 'call', '-s', a, 'click', JSON.stringify({ uid: go })])).toMatch(/Successfully clicked/);
    expect(await ok(['mcp', 'call', '-s', a, 'evaluate_script', '{"function": "() => document.title"}'])).toContain('"clicked"');
  });

  it('mcp call exits 1 and prints the error on stderr when the tool fails', async () => {
    const failed = await tabmux(['mcp', 'call', '--session', a, 'evaluate_script', '{"function": "() => { throw new Error(\'kaboom\') }"}']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('kaboom');
    expect(failed.stdout).toBe('');
    const unknownTool = await tabmux(['mcp', 'call', '--session', a, 'no_such_tool']);
    expect(unknownTool.code).toBe(1);
    expect(unknownTool.stderr).toMatch(/no_such_tool/);
  });

  it('mcp call exits 1 with the reason when the router rejects a stale or foreign uid token', async () => {
    const older = tokenOf(await ok(['mcp', 'call', '-s', a, 'take_snapshot']), 'button', 'Go');
    await ok(['mcp', 'call', '-s', a, 'take_snapshot']);
    const stale = await tabmux(['mcp', 'call', '-s', a, 'click', JSON.stringify({ uid: older })]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/older snapshot.*take_snapshot again/);
    expect(stale.stdout).toBe('');

    const current = tokenOf(await ok(['mcp', 'call', '-s', a, 'take_snapshot']), 'button', 'Go');
    const foreign = await tabmux(['mcp', 'call', '-s', b, 'click', JSON.stringify({ uid: current })]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/belongs to another session/);
    // The rejected click never reached the page: a's token still works.
    expect(await ok(['mcp', 'call', '-s', a, 'click', JSON.stringify({ uid: current })])).toMatch(/Successfully clicked/);
  });

  it('mcp call exits 1 for an unknown session, and refuses a missing --session', async () => {
    const unknown = await tabmux(['mcp', 'call', '--session', 'sess-0000000000000000', 'take_snapshot']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown session sess-0000000000000000/);
    const missing = await tabmux(['mcp', 'call', 'take_snapshot']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--session/);
  });

  it('mcp call --new-session creates a labelled session, calls in it, and names it on stderr for later calls', async () => {
    const first = await tabmux(['mcp', 'call', '--new-session', '--label', 'one shot', 'evaluate_script', '{"function": "() => { window.mark = 6 * 7; return window.mark; }"}']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('42');
    const id = /^session (sess-[0-9a-f]{16}) /m.exec(first.stderr)?.[1] ?? '';
    expect(id).toMatch(/^sess-/);
    expect((await json<SessionInfo[]>(['session', 'list'])).find((session) => session.id === id)).toMatchObject({ label: 'one shot', owned: false });
    // The same tab, still there for the next call.
    expect(await ok(['mcp', 'call', '--session', id, 'evaluate_script', '{"function": "() => window.mark"}'])).toContain('42');
    const both = await tabmux(['mcp', 'call', '--new-session', '--session', id, 'list_pages']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either --session ID or --new-session/);
    await ok(['session', 'close', '--session', id]);
  });

  it('mcp call rejects arguments that are not a JSON object before calling anything', async () => {
    for (const bad of ['{"url": ', 'nope', '[1, 2]', '"text"']) {
      const run = await tabmux(['mcp', 'call', '-s', a, 'navigate_page', bad]);
      expect(run.code, bad).not.toBe(0);
      expect(run.stderr, bad).toMatch(/tool arguments must be a JSON object/);
      expect(run.stdout, bad).toBe('');
      // Text that is not JSON at all is told apart from JSON that is not an object, with the parser's reason.
      if (bad === '{"url": ' || bad === 'nope') {
        expect(run.stderr, bad).toMatch(/this is not JSON \(.+\): /);
      }
    }
    // Still on the page from before: nothing navigated.
    expect(await ok(['mcp', 'call', '-s', a, 'evaluate_script', '{"function": "() => document.title"}'])).toContain('"clicked"');
  });

  describe('mcp batch', () => {
    const scripts = join(home, 'scripts');

    const script = (name: string, steps: unknown): string => {
      const file = join(home, `${name}.json`);
      writeFileSync(file, JSON.stringify(steps));
      return file;
    };

    const flow = (middle: unknown): unknown[] => [
      { tool: 'navigate_page', args: { url: FORM } },
      { id: 'snap', tool: 'take_snapshot' },
      middle,
      { tool: 'click', args: { uid: { $uid: { role: 'button', name: 'Go' } } } },
      { tool: 'evaluate_script', args: { function: '() => document.title' } },
    ];

    it('runs steps in one session and resolves a $uid reference to an earlier snapshot', async () => {
      const file = script('ok', flow({ tool: 'evaluate_script', args: { function: '() => document.title' } }));
      const run = await tabmux(['mcp', 'batch', '--session', b, '--script', file]);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(/^## \[1\/5\] navigate_page/m);
      expect(run.stdout).toMatch(/^## \[2\/5\] take_snapshot \(snap\)/m);
      expect(run.stdout).toMatch(/^## \[4\/5\] click\nSuccessfully clicked/m);
      expect(run.stdout).toMatch(/## \[5\/5\] evaluate_script[\s\S]*"clicked"/);

      const report = JSON.parse(await ok(['mcp', 'batch', '-s', b, '--script', file, '--json'])) as { tool: string; args: { uid?: string }; result: { isError?: boolean } }[];
      expect(report).toHaveLength(5);
      expect(report[3]?.args.uid).toMatch(new RegExp(`^u:${b.slice(5, 13)}:\\d+:`));
      expect(report.every((step) => step.result.isError !== true)).toBe(true);
    });

    it('keeps going after a failed step without --fail-fast, and exits 1', async () => {
      const file = script('fails', flow({ tool: 'evaluate_script', args: { function: "() => { throw new Error('step three broke') }" } }));
      const run = await tabmux(['mcp', 'batch', '--session', b, '--script', file]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/## \[3\/5\] evaluate_script failed\n.*step three broke/);
      expect(run.stdout).toMatch(/## \[4\/5\] click\nSuccessfully clicked/);
      expect(run.stdout).toMatch(/## \[5\/5\] evaluate_script/);
    });

    it('stops at the first failed step with --fail-fast', async () => {
      const file = script('fails', flow({ tool: 'evaluate_script', args: { function: "() => { throw new Error('step three broke') }" } }));
      await ok(['mcp', 'call', '-s', b, 'navigate_page', JSON.stringify({ url: 'about:blank' })]);
      const run = await tabmux(['mcp', 'batch', '--session', b, '--script', file, '--fail-fast']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/step three broke/);
      expect(run.stdout).toMatch(/## \[2\/5\] take_snapshot/);
      expect(run.stdout).not.toMatch(/\[4\/5\]|\[5\/5\]/);
      // The click after the failure never ran.
      expect(await ok(['mcp', 'call', '-s', b, 'evaluate_script', '{"function": "() => document.title"}'])).toContain('"Form"');
    });

    it('fails a step whose $uid matches nothing, and rejects a malformed script', async () => {
      const missing = script('missing', [{ tool: 'take_snapshot' }, { tool: 'click', args: { uid: { $uid: { role: 'button', name: 'Nowhere' } } } }]);
      const run = await tabmux(['mcp', 'batch', '-s', b, '--script', missing, '--fail-fast']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/no element with role button, name "Nowhere"/);

      const malformed = script('malformed', { tool: 'take_snapshot' });
      const bad = await tabmux(['mcp', 'batch', '-s', b, '--script', malformed]);
      // Exit code 2 (bad input), from the schema's error in the build's rarely loaded part: the same error class.
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/batch script/);
      const absent = await tabmux(['mcp', 'batch', '-s', b, '--script', join(scripts, 'absent.json')]);
      expect(absent.code).not.toBe(0);
      expect(absent.stderr).toMatch(/cannot read batch script/);
      const notJson = join(home, 'not-json.json');
      writeFileSync(notJson, '[{"tool": "take_snapshot"},]');
      const broken = await tabmux(['mcp', 'batch', '-s', b, '--script', notJson]);
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain(`batch script ${notJson} is not valid JSON (`);
    });
  });

  describe('pages and page control', () => {
    it('pages shows every tab with its owner', async () => {
      const tabs = await json<TabInfo[]>(['pages']);
      const page = await json<{ session: string; pageId: number; url: string }>(['session', 'page', '--session', a]);
      expect(page).toMatchObject({ session: a, url: FORM });
      expect(tabs.find((tab) => tab.ownerPageId === page.pageId && tab.owner === a)).toMatchObject({ origin: 'created', url: FORM });
      // One id per tab, whatever worker its owner uses.
      expect(new Set(tabs.map((tab) => tab.pageId)).size).toBe(tabs.length);
      const text = await ok(['pages']);
      expect(text).toMatch(/^PAGE\s+OWNER\s+ORIGIN\s+WINDOW\s+SESSION-PAGE\s+WORKER\s+TITLE\s+URL/);
      const listedA = tabs.find((tab) => tab.owner === a);
      // Chrome tells each tab's window, headless too.
      expect(listedA?.windowId).toEqual(expect.any(Number));
      // Which worker serves the owner, as the status has it.
      const status = await json<{ sessions: Array<{ id: string; worker: number }> }>(['daemon', 'status']);
      expect(listedA?.ownerWorker).toBe(status.sessions.find((session) => session.id === a)?.worker);
      expect(text).toMatch(new RegExp(`^${listedA?.pageId}\\s+${a}\\s+created\\s+${listedA?.windowId}\\s+${listedA?.ownerPageId}\\s+${listedA?.ownerWorker}\\s`, 'm'));
      expect(text).toMatch(/\(unowned\)/);
      expect(await ok(['session', 'page', '--session', a])).toBe(`session ${a} is on page ${page.pageId}: ${FORM}\n`);
    });

    it('attach gives an unowned tab to a session, release gives it back, and close leaves it open', async () => {
      const c = await newSession('attacher');
      const unowned = (await json<TabInfo[]>(['pages'])).find((tab) => tab.owner === null && tab.url === 'about:blank');
      expect(unowned).toBeDefined();
      const pageId = unowned!.pageId;

      // With several workers the session may address the tab by another id (its own worker's); pages shows it beside the tab's own.
      const attachedLine = await ok(['session', 'attach', '--session', c, '--page', String(pageId)]);
      expect(attachedLine).toMatch(new RegExp(`^attached the tab; session ${c} is on page \\d+: about:blank\n$`));
      const ownId = Number(/is on page (\d+)/.exec(attachedLine)![1]);
      expect((await json<TabInfo[]>(['pages'])).find((tab) => tab.owner === c)).toMatchObject({ pageId, ownerPageId: ownId, origin: 'attached' });
      // The attached tab is the session's current page: its calls act there.
      expect(await ok(['mcp', 'call', '-s', c, 'evaluate_script', '{"function": "() => location.href"}'])).toContain('about:blank');

      // Another session cannot take it.
      const taken = await tabmux(['session', 'attach', '--session', a, '--page', String(pageId)]);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toMatch(new RegExp(`belongs to session ${c}`));

      const released = await json<{ pageId: number | null; pages: unknown[] }>(['session', 'release', '--session', c, '--page', String(ownId)]);
      expect(released).toMatchObject({ pageId: null, pages: [] });
      expect((await json<TabInfo[]>(['pages'])).find((tab) => tab.pageId === pageId && tab.worker === 0)).toMatchObject({ owner: null, origin: null });

      await ok(['session', 'attach', '--session', c, '--page', String(pageId)]);
      expect(await ok(['session', 'close', '--session', c])).toBe(`closed session ${c} and 0 tab(s) it opened\n`);
      const after = (await json<TabInfo[]>(['pages'])).find((tab) => tab.pageId === pageId && tab.worker === 0);
      expect(after).toMatchObject({ owner: null });
    });

    it('attach and release refuse bad page ids', async () => {
      const word = await tabmux(['session', 'attach', '--session', a, '--page', 'first']);
      expect(word.code).not.toBe(0);
      expect(word.stderr).toMatch(/--page must be a page id/);
      const none = await tabmux(['session', 'attach', '--session', a, '--page', '9999']);
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/no tab with page id 9999/);
    });

    it('session close closes the tabs the session opened, and later calls say it was closed', async () => {
      const { pageId } = await json<{ pageId: number }>(['session', 'page', '--session', a]);
      const closed = await json<{ closed: string; closedPages: number[] }>(['session', 'close', '--session', a]);
      expect(closed).toEqual({ closed: a, closedPages: [pageId] });
      expect((await json<TabInfo[]>(['pages'])).map((tab) => tab.pageId)).not.toContain(pageId);
      const call = await tabmux(['mcp', 'call', '-s', a, 'take_snapshot']);
      expect(call.code).toBe(1);
      expect(call.stderr).toMatch(/was closed/);
      expect((await json<SessionInfo[]>(['session', 'list'])).map((session) => session.id)).not.toContain(a);
    });
  });
});


describe('tabmux session release of a page the session does not own', () => {
  // Runs last before stop: when it fails, the worker's queue may be left blocked for every session.
  it('is refused, and calls of the same and other sessions keep running', async () => {
    const owner = await newSession('releaser');
    const other = await newSession('bystander');
    await ok(['mcp', 'call', '-s', other, 'evaluate_script', '{"function": "() => 1"}']);
    const refused = await tabmux(['session', 'release', '--session', owner, '--page', '9999'], {}, 10_000);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/page 9999 does not belong to session/);
    const after = await tabmux(['mcp', 'call', '-s', other, 'evaluate_script', '{"function": "() => 41 + 1"}'], {}, 10_000);
    expect(after.code, 'a call after the refused release finishes within 10 s').toBe(0);
    expect(after.stdout).toContain('42');
  });
});

describe('tabmux daemon stop', () => {
  it('ends the upstream child and Chrome and removes the socket and pid file', async () => {
    const before = await json<DaemonStatus>(['daemon', 'status']);
    const pids = { daemon: before.pid, chrome: before.chrome.pid!, upstream: before.upstream.pid! };
    expect(Object.values(pids).every(alive)).toBe(true);

    const stopped = await tabmux(['daemon', 'stop', '--json']);
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual({ profile: 'default', stopped: true, how: 'asked' });
    for (const [name, pid] of Object.entries(pids)) {
      expect(alive(pid), `${name} pid ${pid}`).toBe(false);
    }
    expect(existsSync(join(home, 'run', 'default.sock'))).toBe(false);
    expect(existsSync(join(home, 'run', 'default.pid'))).toBe(false);

    expect((await tabmux(['daemon', 'status'])).code).toBe(3);
    const again = await tabmux(['daemon', 'stop']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/was not running/);
    expect(JSON.parse((await tabmux(['daemon', 'stop', '--json'])).stdout)).toEqual({ profile: 'default', stopped: false });
  });
});
