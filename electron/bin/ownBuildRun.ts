import { createRequire } from 'node:module';
import { ownBuildOf } from '../cli/ownBuilds.js';
import { binFile } from '../core/platform/version.js';
import type * as DaemonBuild from './daemon.js';
import type * as AgentBuild from './mcp.js';

/**
 * The agents' build (mcp.cjs, see scripts/bundleCli.mjs). It is CommonJS: Node loads it without its ES module
 * loader, which is several milliseconds of every `mcp serve` and `mcp call` process's start.
 */
export function agentBuild(): typeof AgentBuild {
  return createRequire(import.meta.url)(binFile('mcp.cjs')) as typeof AgentBuild;
}

/**
 * The daemon's build (daemon.cjs). It is CommonJS too: a daemon started by the `tabmux` command (tabmux.cjs) then
 * never starts Node's ES module loader, which would stay in its memory for as long as it runs.
 */
export function daemonBuild(): typeof DaemonBuild {
  return createRequire(import.meta.url)(binFile('daemon.cjs')) as typeof DaemonBuild;
}

/**
 * Runs a command that has a build of its own (electron/cli/ownBuilds.ts), loading that build and nothing else; for
 * every other command, undefined. The builds are found by their place in the package, wherever the bundler put this
 * code.
 */
export function runOwnBuild(args: readonly string[]): Promise<number> | undefined {
  switch (ownBuildOf(args)) {
    case 'mcp':
      return agentBuild().runMcp(args);
    case 'daemon':
      return daemonBuild().runDaemonCommand(args);
    case undefined:
      return undefined;
  }
}
