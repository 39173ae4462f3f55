import type { EntryPoints } from '../cli/EntryPoints.js';
import { daemonRun } from '../cli/daemonRun.js';
import { runCommand } from '../cli/runCommand.js';
import { runDaemon } from './runDaemon.js';

export { runDaemon };

const onlyTheDaemon: EntryPoints = {
  runDaemon,
  runBridge: () => Promise.reject(new Error('a daemon does not run a bridge')),
  runDashboard: () => Promise.reject(new Error('a daemon does not run the dashboard')),
};

/**
 * `tabmux daemon run`: the installed package builds it into one file of its own, with the daemon's code and
 * nothing of the rest of the CLI. A long-lived process then holds only what serving agents needs, and its start
 * reads one file instead of resolving a few dozen.
 */
export function runDaemonCommand(args: readonly string[]): Promise<number> {
  return runCommand(args, [daemonRun], onlyTheDaemon);
}
