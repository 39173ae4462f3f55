import { describe, expect, it } from 'vitest';
import { daemonRun } from '../cli/daemonRun.js';
import { agentCommands } from './mcp.js';
import { AGENT_COMMANDS, ownBuildOf } from '../cli/ownBuilds.js';

describe('commands with a build of their own', () => {
  it("are exactly the commands of the agents' build, so none is sent where it is missing", () => {
    expect(agentCommands.map((command) => command.words.join(' '))).toEqual(AGENT_COMMANDS);
  });

  it('are told apart from the rest by their first two words', () => {
    expect(ownBuildOf(['mcp', 'call', '--session', 's', 'list_pages'])).toBe('mcp');
    expect(ownBuildOf(['mcp', 'serve'])).toBe('mcp');
    expect(ownBuildOf(['session', 'create', '--label', 'x'])).toBe('mcp');
    expect(ownBuildOf(['daemon', 'start', '--headless'])).toBe('mcp');
    expect(ownBuildOf(daemonRun.words)).toBe('daemon');
    expect(ownBuildOf([...daemonRun.words, '--profile', 'work', '--json'])).toBe('daemon');
    for (const other of [['mcp'], ['mcp', 'nonsense'], ['daemon', 'status'], ['daemon', 'stop'], ['daemon'], ['session', 'list'], ['session'], ['mcp serve'], []]) {
      expect(ownBuildOf(other), other.join(' ')).toBeUndefined();
    }
  });
});
