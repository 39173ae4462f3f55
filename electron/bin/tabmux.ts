#!/usr/bin/env node
import { ownBuildOf } from '../cli/ownBuilds.js';
import { entryPoints } from './entryPoints.js';

const args = process.argv.slice(2);
// The commands agents run (`mcp serve`, `mcp call`, ...) and the daemon load files of their own and nothing else;
// the full command table, and the schemas the other commands parse with, are for everything else.
const own = ownBuildOf(args);
process.exitCode =
  own === 'mcp'
    ? await (await import('./mcp.js')).runMcp(args)
    : own === 'daemon'
      ? await (await import('./daemon.js')).runDaemonCommand(args)
      : await (await import('../cli/main.js')).runCli(args, entryPoints);
