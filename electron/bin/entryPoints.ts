import type { EntryPoints } from '../cli/EntryPoints.js';
import { agentBuild, daemonBuild } from './ownBuildRun.js';

/**
 * The real programs behind `daemon run`, `dashboard` and `mcp serve`, for the CLI's command table. Each is loaded
 * only when its command runs: a bridge must not pay for the daemon's modules at start-up, nor a short CLI command
 * for any of them. The daemon and the bridge come from their own builds (daemon.cjs, mcp.cjs), so the installed
 * package holds one copy of each.
 */
export const entryPoints: EntryPoints = {
  runDaemon: (request) => daemonBuild().runDaemon(request),
  runDashboard: async (request) => (await import('./runDashboard.js')).runDashboard(request),
  runBridge: (request) => agentBuild().runBridge(request),
};
