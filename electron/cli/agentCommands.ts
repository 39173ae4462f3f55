/**
 * The `mcp` commands agents run, often once per step (`mcp call`) or once per chat (`mcp serve`). `tabmux` sends
 * them to a build of their own (electron/bin/mcp.ts) before it loads anything else, so this list is all it reads.
 */
export const AGENT_COMMANDS: readonly string[] = ['serve', 'call', 'batch', 'list'];

export function isAgentCommand(args: readonly string[]): boolean {
  return args[0] === 'mcp' && AGENT_COMMANDS.includes(args[1] ?? '');
}
