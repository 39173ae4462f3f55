import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../shared/errors.js';
import { hasTerminalControl } from '../../shared/terminalText.js';
import type { Command } from './Command.js';
import type { EntryPoints } from './EntryPoints.js';
import { EXIT, exitCodeOf, runCommand, type CliIo } from './runCommand.js';

const NONE: EntryPoints = { runDaemon: () => Promise.resolve(1), runDashboard: () => Promise.resolve(1), runBridge: () => Promise.resolve(1) };

/** What a page or an agent may have written into anything a command prints. */
const HOSTILE = 'label\u001b]0;owned\u0007 \u001b[2J\u009b31m\r\u202eevil\u007f';

const echo: Command = {
  words: ['echo'],
  usage: 'tabmux echo',
  summary: 'prints hostile text',
  run: (context) => {
    context.stdout(context.json ? JSON.stringify({ label: HOSTILE }, null, 2) : `SESSION  LABEL\nsess-1   ${HOSTILE}`);
    context.stderr(`note about ${HOSTILE}`);
    return Promise.resolve(0);
  },
};

const fail: Command = {
  words: ['fail'],
  usage: 'tabmux fail',
  summary: 'fails with hostile text',
  run: () => Promise.reject(new TabmuxError('invalid_params', `no session ${HOSTILE}`)),
};

async function run(argv: string[]): Promise<{ out: string[]; err: string[]; code: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text) };
  const code = await runCommand(argv, [echo, fail], NONE, io);
  return { out, err, code };
}

describe('what commands print', () => {
  it('shows terminal controls as escapes on stdout and stderr, keeping the lines', async () => {
    const { out, err } = await run(['echo']);
    expect(out).toEqual(['SESSION  LABEL\nsess-1   label\\u001b]0;owned\\u0007 \\u001b[2J\\u009b31m\\u000d\\u202eevil\\u007f']);
    expect(hasTerminalControl(err.join(''))).toBe(false);
    const failed = await run(['fail']);
    expect(failed.code).toBe(2);
    expect(failed.err.join('')).toContain('no session label\\u001b]0;owned');
    expect(hasTerminalControl(failed.err.join(''))).toBe(false);
  });

  it('keeps --json exact while it shows no control', async () => {
    const { out } = await run(['echo', '--json']);
    expect(hasTerminalControl(out.join(''))).toBe(false);
    expect(JSON.parse(out.join(''))).toEqual({ label: HOSTILE });
    const failed = await run(['fail', '--json']);
    expect(JSON.parse(failed.out.join(''))).toEqual({ error: { code: 'invalid_params', message: `no session ${HOSTILE}` } });
    expect(failed.err).toEqual([]);
  });

  it('reports a usage error as JSON on stdout with --json, exit 2, whatever went wrong', async () => {
    for (const argv of [['echo', '--nope', '--json'], ['nothing', '--json'], ['echo', 'extra', '--json']]) {
      const { out, err, code } = await run(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(err).toEqual([]);
      const parsed: unknown = JSON.parse(out.join(''));
      expect(parsed).toMatchObject({ error: { code: 'invalid_params', message: expect.any(String) as unknown } });
    }
  });
});

describe('usage errors', () => {
  it("name the option in tabmux's words, never Node's parser's", async () => {
    const withSession: Command = { ...echo, words: ['say'], usage: 'tabmux say --session ID', options: { session: { type: 'string', short: 's' } } };
    const runWith = async (argv: string[]) => {
      const err: string[] = [];
      const code = await runCommand(argv, [withSession], NONE, { stdout: () => undefined, stderr: (text) => err.push(text) });
      return { code, err: err.join('\n') };
    };
    const unknown = await runWith(['say', '--sesion', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown option --sesion');
    expect(unknown.err).not.toMatch(/To specify a positional argument|parseArgs|ERR_PARSE_ARGS/);
    const missing = await runWith(['say', '--session']);
    expect(missing.err).toContain('option --session needs a value');
    const swallowed = await runWith(['say', '--session', '-p']);
    expect(swallowed.err).toContain('option --session needs a value (got -p');
    const flag = await runWith(['say', '--json=yes']);
    expect(flag.err).toContain('option --json takes no value');
    const short = await runWith(['say', '-x']);
    expect(short.err).toContain('unknown option -x');
    expect(short.err).not.toContain('did you mean');
    expect(unknown.err).toContain('unknown option --sesion (did you mean --session?); usage: tabmux say --session ID');
    expect((await runWith(['say', '--jsn'])).err).toContain('unknown option --jsn (did you mean --json?)');
    expect((await runWith(['say', '--verbose'])).err).not.toContain('did you mean');
  });

  it('name the command a typo most likely meant, when one alone is close', async () => {
    const commands: Command[] = [{ ...echo, words: ['things', 'show'] }, { ...echo, words: ['things', 'hide'] }, { ...echo, words: ['pages'] }];
    const runWith = async (argv: string[]) => {
      const err: string[] = [];
      const code = await runCommand(argv, commands, NONE, { stdout: () => undefined, stderr: (text) => err.push(text) });
      return { code, err: err.join('\n') };
    };
    expect(await runWith(['thngs', 'show'])).toEqual({ code: 2, err: expect.stringContaining('unknown command "thngs show" (did you mean tabmux things show?)') as unknown });
    expect((await runWith(['things', 'shwo'])).err).toContain('unknown command "things shwo" (did you mean tabmux things show?)');
    expect((await runWith(['pags'])).err).toContain('unknown command "pags" (did you mean tabmux pages?)');
    expect((await runWith(['thing'])).err).toContain('(did you mean tabmux things?)');
    expect((await runWith(['frobnicate'])).err).toContain('unknown command "frobnicate"; run tabmux --help');
    expect((await runWith(['things', 'eat'])).err).not.toContain('did you mean');
  });

  it('lists a group for its name alone (exit 2) and for --help (exit 0)', async () => {
    const grouped: Command[] = [{ ...echo, words: ['things', 'show'] }, { ...echo, words: ['things', 'hide'] }];
    const runWith = async (argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCommand(argv, grouped, NONE, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const help = await runWith(['things', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('tabmux things show');
    expect(help.out).toContain('tabmux things hide');
    const bare = await runWith(['things']);
    expect(bare.code).toBe(2);
    expect(bare.err).toContain('tabmux things needs a command');
    expect(bare.err).toContain('tabmux things hide');
    const wrong = await runWith(['things', 'eat']);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('unknown command "things eat"');
  });
});

describe('exit codes', () => {
  it('are one table: usage 2, not running 3, any other failure 1', () => {
    expect(EXIT).toEqual({ ok: 0, failure: 1, usage: 2, notRunning: 3 });
    expect(exitCodeOf('invalid_params')).toBe(2);
    expect(exitCodeOf('daemon_not_running')).toBe(3);
    for (const code of ['invalid_profile', 'chrome_not_found', 'daemon_start_failed', 'unknown_session', 'internal'] as const) {
      expect(exitCodeOf(code), code).toBe(1);
    }
  });

  it('a bad --profile name is a usage error that keeps its own code', async () => {
    const out: string[] = [];
    const code = await runCommand(['echo', '--profile', '../x', '--json'], [echo], NONE, { stdout: (text) => out.push(text), stderr: () => undefined });
    expect(code).toBe(2);
    expect(JSON.parse(out.join(''))).toMatchObject({ error: { code: 'invalid_profile' } });
  });
});
