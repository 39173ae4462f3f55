#!/usr/bin/env node
import { entryPoints } from './entryPoints.js';
import { runOwnBuild } from './ownBuildRun.js';

const args = process.argv.slice(2);
// The commands agents run (`mcp serve`, `mcp call`, ...) and the daemon load files of their own and nothing else;
// the full command table, and the schemas the other commands parse with, are for everything else.
process.exitCode = await (runOwnBuild(args) ?? (await import('../cli/main.js')).runCli(args, entryPoints));
