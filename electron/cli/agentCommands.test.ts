import { describe, expect, it } from 'vitest';
import { AGENT_COMMANDS, isAgentCommand } from './agentCommands.js';
import { mcpCommands } from './mcpCommands.js';

describe('agent commands', () => {
  it('are exactly the mcp commands, so none is missing from their own build', () => {
    expect(mcpCommands.map((command) => command.words.join(' '))).toEqual(AGENT_COMMANDS.map((name) => `mcp ${name}`));
  });

  it('are told apart from the rest by their first two words', () => {
    expect(isAgentCommand(['mcp', 'call', '--session', 's', 'list_pages'])).toBe(true);
    expect(isAgentCommand(['mcp', 'serve'])).toBe(true);
    expect(isAgentCommand(['mcp'])).toBe(false);
    expect(isAgentCommand(['mcp', 'nonsense'])).toBe(false);
    expect(isAgentCommand(['session', 'create'])).toBe(false);
  });
});
