/**
 * Commands built apart from the rest of the CLI, which `tabmux` hands over to before it loads anything else:
 * - `mcp`: the commands agents run, often once per step (`mcp call`) or once per chat (`mcp serve`), and
 *   `session create` and `daemon start`, which scripts run before their first call; electron/bin/mcp.ts.
 * - `daemon`: `daemon run`, a profile's daemon, which lives long and should hold only what serving agents needs;
 *   electron/bin/daemon.ts.
 */
export const AGENT_COMMANDS: readonly string[] = ['mcp serve', 'mcp call', 'mcp batch', 'mcp list', 'session create', 'daemon start'];

export type OwnBuild = 'mcp' | 'daemon';

export function ownBuildOf(args: readonly string[]): OwnBuild | undefined {
  const words = `${args[0] ?? ''} ${args[1] ?? ''}`;
  if (AGENT_COMMANDS.includes(words)) {
    return 'mcp';
  }
  if (words === 'daemon run') {
    return 'daemon';
  }
  return undefined;
}
