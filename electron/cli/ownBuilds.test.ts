import { describe, expect, it } from 'vitest';
import { daemonRun } from './daemonRun.js';
import { mcpCommands } from './mcpCommands.js';
import { AGENT_COMMANDS, ownBuildOf } from './ownBuilds.js';

describe('commands with a build of their own', () => {
  it('include exactly the mcp commands, so none is missing from their build', () => {
    expect(mcpCommands.map((command) => command.words.join(' '))).toEqual(AGENT_COMMANDS.map((name) => `mcp ${name}`));
  });

  it('are told apart from the rest by their first two words', () => {
    expect(ownBuildOf(['mcp', 'call', '--session', 's', 'list_pages'])).toBe('mcp');
    expect(ownBuildOf(['mcp', 'serve'])).toBe('mcp');
    expect(ownBuildOf(daemonRun.words)).toBe('daemon');
    expect(ownBuildOf([...daemonRun.words, '--profile', 'work', '--json'])).toBe('daemon');
    for (const other of [['mcp'], ['mcp', 'nonsense'], ['daemon', 'start'], ['daemon'], ['session', 'create'], []]) {
      expect(ownBuildOf(other), other.join(' ')).toBeUndefined();
    }
  });
});
