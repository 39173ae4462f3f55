import { describe, expect, it } from 'vitest';
import { COMMANDS } from './commands.js';
import { commandHelp, groupHelp, groupsOf, overallHelp, undescribedOptions } from './helpText.js';

describe('help generated from the command table', () => {
  it('describes every option of every command, and shows at least one example', () => {
    for (const command of COMMANDS) {
      const name = command.words.join(' ');
      expect(undescribedOptions(command), name).toEqual([]);
      expect(command.examples?.length ?? 0, name).toBeGreaterThan(0);
      for (const example of command.examples ?? []) {
        expect(example, name).toContain(`tabmux ${command.words.join(' ')}`);
      }
    }
  });

  it("shows each option's meaning, value, default and environment variable, then the examples and exit codes", () => {
    const call = COMMANDS.find((command) => command.words.join(' ') === 'mcp call');
    expect(call).toBeDefined();
    const help = call === undefined ? '' : commandHelp(call);
    expect(help).toMatch(/^usage: tabmux mcp call /);
    expect(help).toContain('  --session, -s ID\n      the session to act in');
    expect(help).toMatch(/--chrome PATH\n.*\(default: .*; environment: TABMUX_CHROME\)/);
    expect(help).toContain('  --profile, -p NAME\n');
    expect(help).toContain('(default: "default")');
    expect(help).toContain('  --json\n');
    expect(help).toMatch(/Examples:\n {2}tabmux mcp call /);
    expect(help).toContain('Exit codes: 0 ok, 1 failure, 2 usage error, 3 daemon not running.');
  });

  it('lists every group and its commands, one line each', () => {
    expect(groupsOf(COMMANDS)).toEqual(expect.arrayContaining(['daemon', 'profile', 'session', 'mcp']));
    const all = overallHelp('tabmux', COMMANDS);
    for (const command of COMMANDS) {
      expect(all).toContain(`tabmux ${command.words.join(' ')}  `);
    }
    const session = groupHelp('session', COMMANDS);
    expect(session.split('\n')[0]).toBe('tabmux session commands:');
    expect(session).toMatch(/^ {2}tabmux session close +Close a session/m);
    expect(session).not.toContain('tabmux daemon');
  });
});
