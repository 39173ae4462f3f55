import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliDriver } from '../helpers/cliDriver.js';
import { cliPath } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitUntil } from '../helpers/waitFor.js';

/**
 * The conventions every command follows, through the compiled bin (run `npm run build` first) as a user runs it:
 * help for every group and command, one table of exit codes, errors as JSON on stdout with --json, a missing
 * profile said the same way, plain-language output, `tabmux doctor`, and the messages a person meets first.
 */

const { home, cleanup } = makeTestHome();
const { tabmux, ok, json } = cliDriver(home);

afterAll(async () => {
  await tabmux(['daemon', 'stop', '--all']);
  cleanup();
});

const GROUPS = ['daemon', 'profile', 'session', 'mcp'];

interface JsonError {
  error: { code: string; message: string };
}

describe('help', () => {
  it('bare tabmux lists every group and command, exit 0', async () => {
    const run = await tabmux([]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/unknown command/);
    for (const group of GROUPS) {
      expect(run.stdout).toContain(`${group}:\n`);
    }
    for (const command of ['tabmux daemon start', 'tabmux session list', 'tabmux mcp serve', 'tabmux pages', 'tabmux log', 'tabmux doctor']) {
      expect(run.stdout).toContain(`  ${command} `);
    }
    expect(run.stdout).toContain('Exit codes: 0 ok, 1 failure, 2 usage error, 3 daemon not running.');
  });

  it("lists a group's commands with a summary: exit 0 for --help, exit 2 for the group alone", async () => {
    for (const group of GROUPS) {
      const asked = await tabmux([group, '--help']);
      expect(asked.code, group).toBe(0);
      expect(asked.stdout, group).toMatch(new RegExp(`^tabmux ${group} commands:\\n( {2}tabmux ${group} \\S+ +\\S.*\\n)+`));
      const bare = await tabmux([group]);
      expect(bare.code, group).toBe(2);
      expect(bare.stderr, group).toContain(`tabmux ${group} needs a command`);
      expect(bare.stderr, group).toContain(`tabmux ${group} `);
      expect(bare.stderr, group).not.toMatch(/unknown command/);
    }
  });

  it('describes every option of every command, with examples', async () => {
    const listing = await ok(['--help']);
    const commands = [...listing.matchAll(/^ {2}tabmux ([a-z-]+(?: [a-z-]+)?) {2}/gm)].map((match) => (match[1] ?? '').split(' '));
    expect(commands.length).toBeGreaterThan(20);
    for (const words of commands) {
      const help = await tabmux([...words, '--help']);
      const name = words.join(' ');
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toMatch(new RegExp(`^usage: tabmux ${name}`));
      expect(help.stdout, name).toMatch(/\nOptions:\n(( {2}--\S+.*\n {6}\S.*\n)+)/);
      expect(help.stdout, name).toContain('  --profile, -p NAME\n');
      expect(help.stdout, name).toMatch(new RegExp(`\\nExamples:\\n {2}.*tabmux ${name}`));
    }
    const call = await ok(['mcp', 'call', '--help']);
    expect(call).toMatch(/--chrome PATH\n.*environment: TABMUX_CHROME/);
  });
});

describe('exit codes and errors', () => {
  it('a usage error exits 2 in tabmux words, and with --json is JSON on stdout', async () => {
    const text = await tabmux(['session', 'list', '--sesion', 'x']);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('unknown option --sesion');
    expect(text.stderr).not.toMatch(/To specify a positional argument|ERR_PARSE_ARGS/);

    for (const args of [['session', 'list', '--sesion', 'x', '--json'], ['mcp', 'call', '--json'], ['nonsense', '--json'], ['session', 'close', '--json'], ['daemon', '--json']]) {
      const run = await tabmux(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toBe('');
      expect(JSON.parse(run.stdout) as JsonError, args.join(' ')).toMatchObject({ error: { code: 'invalid_params', message: expect.any(String) as unknown } });
    }
  });

  it('a missing profile is an error naming it, for every command; a known one that is not running is exit 3', async () => {
    for (const args of [['daemon', 'status'], ['log'], ['session', 'list'], ['pages'], ['daemon', 'start'], ['session', 'create'], ['mcp', 'call', '--new-session', 'list_pages'], ['mcp', 'list']]) {
      const run = await tabmux([...args, '--profile', 'nope']);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toMatch(/profile nope does not exist; create it with: tabmux profile add nope/);
      const asJson = await tabmux([...args, '--profile', 'nope', '--json']);
      expect(JSON.parse(asJson.stdout) as JsonError).toMatchObject({ error: { code: 'invalid_profile' } });
    }
    const stopped = await tabmux(['daemon', 'status']);
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toMatch(/not running/);
  });
});

describe('doctor', () => {
  it('on a clean TABMUX_HOME finds nothing failing, and says what each check found', async () => {
    const fresh = makeTestHome();
    try {
      const driver = cliDriver(fresh.home);
      // Its own temp dir, which the Chromes doctor starts and kills must leave as they found it.
      const scratch = join(fresh.home, 'tmp');
      mkdirSync(scratch);
      const run = await driver.tabmux(['doctor', '--json'], { TMPDIR: scratch }, 90_000);
      expect(readdirSync(scratch)).toEqual([]);
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout) as { ok: boolean; checks: { name: string; status: string; message: string }[] };
      expect(report.ok).toBe(true);
      const names = report.checks.map((item) => item.name);
      expect(names).toEqual(expect.arrayContaining(['node', 'TABMUX_HOME', 'runtime folder', 'chrome (default)', 'chrome (default) sandbox', 'daemon (default)']));
      expect(report.checks.find((item) => item.name === 'chrome (default)')?.message).toMatch(/chrom.*\d+\.\d+/i);
      const text = await driver.tabmux(['doctor'], {}, 90_000);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^ok +node +Node /m);
    } finally {
      fresh.cleanup();
    }
  });

  it('fails, and says what to do, when the profile\'s Chrome is missing', async () => {
    await ok(['profile', 'add', 'broken', '--chrome', '/nonexistent/chrome']);
    const run = await tabmux(['doctor', '--profile', 'broken']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^fail +chrome \(broken\) +Chrome not found at \/nonexistent\/chrome/m);
    expect(run.stdout).toMatch(/To do:\n.*chrome \(broken\): the profile names \/nonexistent\/chrome; .*tabmux profile add broken --chrome PATH/);
  });
});

describe('what a person reads', () => {
  it("refuses the README's sample token as stale or unknown, not another session's; session lists say detached", async () => {
    const session = (await ok(['session', 'create', '--label', 'reader'])).trim();
    const run = await tabmux(['mcp', 'call', '--session', session, 'click', '{"uid": "u:1a2b3c4d:1:1_3"}']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/uid token u:1a2b3c4d:1:1_3 is stale or unknown/);
    expect(run.stderr).not.toMatch(/another session/);
    expect(await ok(['session', 'list'])).toMatch(new RegExp(`^SESSION +LABEL +STATE +CLIENT .*\\n${session} +reader +\\S+ +detached `, 'm'));
    expect(await ok(['session', 'close', '--session', session])).toBe(`closed session ${session} and 0 tab(s) it opened\n`);
  });

  it('mcp call on a paused session says on stderr that it waits, and how to resume', async () => {
    const session = (await ok(['session', 'create'])).trim();
    expect(await ok(['session', 'pause', '--session', session])).toBe(`paused session ${session}: its calls wait until tabmux session resume --session ${session}\n`);
    const child = spawn(process.execPath, [cliPath(), 'mcp', 'call', '--session', session, 'list_pages'], { env: { ...process.env, TABMUX_HOME: home, TABMUX_HEADLESS: '1' } });
    let stderr = '';
    let stdout = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitUntil(() => stderr.includes('is paused'), 'the paused hint', 60_000);
      expect(stderr).toContain(`session ${session} is paused: a person holds its calls to use its tab. This call waits until it is resumed (tabmux session resume --session ${session}`);
      expect(await ok(['session', 'resume', '--session', session])).toBe(`resumed session ${session}: its calls run again\n`);
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/Pages/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('mcp call --images writes a result\'s images to files and prints their paths', async () => {
    const session = (await ok(['session', 'create'])).trim();
    const dir = join(home, 'shots');
    const text = await ok(['mcp', 'call', '--session', session, 'take_screenshot', '--images', dir]);
    const file = /\[image\/png \(\d+ bytes\) saved to (.+\.png)\]/.exec(text)?.[1];
    expect(file, text).toBeDefined();
    expect(file?.startsWith(join(dir, 'take_screenshot-'))).toBe(true);
    const bytes = readFileSync(file ?? '');
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(statSync(file ?? '').mode & 0o777).toBe(0o600);
    // Without it, the line says what the image is and nothing is written.
    expect(await ok(['mcp', 'call', '--session', session, 'take_screenshot'])).toMatch(/\[image\/png \(\d+ bytes\)\]/);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('mcp call says on stderr when its call waits for a person, and what answers it: a confirm policy, then ask_human', async () => {
    const session = (await ok(['session', 'create'])).trim();
    const policy = JSON.parse(await ok(['policy', 'add', '--tool', 'evaluate_script', '--url', '*', '--action', 'confirm', '--json'])) as { id: string };
    const run = (tool: string, args: unknown) => {
      const child = spawn(process.execPath, [cliPath(), 'mcp', 'call', '--session', session, tool, JSON.stringify(args)], { env: { ...process.env, TABMUX_HOME: home, TABMUX_HEADLESS: '1' } });
      const out = { stdout: '', stderr: '' };
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out.stderr += chunk));
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out.stdout += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { child, out, exited };
    };
    const held = run('evaluate_script', { function: '() => 6 * 7' });
    try {
      await waitUntil(() => held.out.stderr.includes("waits for a person's yes"), 'the confirm hint', 60_000);
      const id = /tabmux approve (req-[\w-]+)/.exec(held.out.stderr)?.[1];
      expect(held.out.stderr).toContain(`session ${session}'s evaluate_script on about:blank waits for a person's yes: tabmux approve ${id ?? ''}, or tabmux deny ${id ?? ''} --reason TEXT`);
      expect(await ok(['approve', id ?? ''])).toContain(id ?? '');
      expect(await held.exited).toBe(0);
      expect(held.out.stdout).toContain('42');
      // Said once, however long it waited.
      expect(held.out.stderr.split("waits for a person's yes").length).toBe(2);
    } finally {
      held.child.kill('SIGKILL');
      await ok(['policy', 'remove', policy.id]);
    }

    const asking = run('ask_human', { question: 'Which account?' });
    try {
      await waitUntil(() => asking.out.stderr.includes("waits for a person's answer"), 'the question hint', 60_000);
      const id = /tabmux answer (req-[\w-]+)/.exec(asking.out.stderr)?.[1];
      expect(asking.out.stderr).toContain(`session ${session} waits for a person's answer to: Which account? (tabmux answer ${id ?? ''} --text TEXT`);
      await ok(['answer', id ?? '', '--text', 'the work one']);
      expect(await asking.exited).toBe(0);
      expect(asking.out.stdout).toContain('the work one');
    } finally {
      asking.child.kill('SIGKILL');
    }
  });

  it('dashboard --json prints its link as JSON', async () => {
    const child = spawn(process.execPath, [cliPath(), 'dashboard', '--json'], { env: { ...process.env, TABMUX_HOME: home, TABMUX_HEADLESS: '1' } });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitUntil(() => stdout.includes('\n'), 'the dashboard link', 60_000);
      const first = JSON.parse(stdout.split('\n')[0] ?? '') as { url: string };
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('a daemon status --json of a running daemon still parses', async () => {
    const status = await json<{ profile: string }>(['daemon', 'status']);
    expect(status.profile).toBe('default');
  });
});
