import type { EntryPoints } from '../cli/EntryPoints.js';
import { mcpCommands } from '../cli/mcpCommands.js';
import { runCommand } from '../cli/runCommand.js';
import { sessionCreate } from '../cli/sessionCreate.js';
import { daemonStart } from '../cli/daemonStart.js';
import { runBridge } from './runBridge.js';

export { runBridge };
/**
 * The errors module of this build, for its rarely loaded part (mcp-lazy.cjs), so that both throw and recognise the
 * same TabmuxError class.
 */
export * as sharedErrors from '../../shared/errors.js';

/** The commands in this build: ownBuilds.ts sends exactly these here. */
export const agentCommands = [...mcpCommands, sessionCreate, daemonStart];

const onlyTheBridge: EntryPoints = {
  runBridge,
  runDaemon: () => Promise.reject(new Error('the mcp commands start a daemon as a process of its own')),
  runDashboard: () => Promise.reject(new Error('the mcp commands do not run the dashboard')),
};

/**
 * The `mcp` commands agents run, and `session create` and `daemon start` (see electron/cli/ownBuilds.ts): the installed package builds
 * them into a file of their own, without the rest of the command table and without the schema library. A daemon
 * they have to start is a process of its own.
 */
export function runMcp(args: readonly string[]): Promise<number> {
  return runCommand(args, agentCommands, onlyTheBridge);
}
