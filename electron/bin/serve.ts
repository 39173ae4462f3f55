import type { EntryPoints } from '../cli/EntryPoints.js';
import { mcpServe } from '../cli/mcpServe.js';
import { runCommand } from '../cli/runCommand.js';
import { runBridge } from './runBridge.js';

const onlyTheBridge: EntryPoints = {
  runBridge,
  runDaemon: () => Promise.reject(new Error('tabmux mcp serve starts a daemon as a process of its own')),
  runDashboard: () => Promise.reject(new Error('tabmux mcp serve does not run the dashboard')),
};

/**
 * `tabmux mcp serve`: every new agent chat starts one, so the installed package builds it into a file of its own
 * with the bridge's code in it and nothing else (the daemon, when it has to start, is a process of its own).
 */
export function serve(args: readonly string[]): Promise<number> {
  return runCommand(args, [mcpServe], onlyTheBridge);
}
