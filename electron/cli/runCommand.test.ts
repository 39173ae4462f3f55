import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../shared/errors.js';
import { hasTerminalControl } from '../../shared/terminalText.js';
import type { Command } from './Command.js';
import type { EntryPoints } from './EntryPoints.js';
import { runCommand, type CliIo } from './runCommand.js';

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
    expect(JSON.parse(failed.err.join(''))).toEqual({ error: { code: 'invalid_params', message: `no session ${HOSTILE}` } });
  });
});
