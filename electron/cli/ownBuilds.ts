/**
 * Commands built apart from the rest of the CLI, which `tabmux` hands over to before it loads anything else:
 * - `mcp`: the commands agents run, often once per step (`mcp call`) or once per chat (`mcp serve`);
 *   electron/bin/mcp.ts.
 * - `daemon`: `daemon run`, a profile's daemon, which lives long and should hold only what serving agents needs;
 *   electron/bin/daemon.ts.
 */
export const AGENT_COMMANDS: readonly string[] = ['serve', 'call', 'batch', 'list'];

export type OwnBuild = 'mcp' | 'daemon';

export function ownBuildOf(args: readonly string[]): OwnBuild | undefined {
  if (args[0] === 'mcp' && AGENT_COMMANDS.includes(args[1] ?? '')) {
    return 'mcp';
  }
  if (args[0] === 'daemon' && args[1] === 'run') {
    return 'daemon';
  }
  return undefined;
}
