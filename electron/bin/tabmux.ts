#!/usr/bin/env node
import { isAgentCommand } from '../cli/agentCommands.js';
import { entryPoints } from './entryPoints.js';

const args = process.argv.slice(2);
// The commands agents run (`mcp serve`, `mcp call`, ...) load a file of their own and nothing else; the full command
// table, and the schemas the other commands parse with, are for everything else.
process.exitCode = isAgentCommand(args) ? await (await import('./mcp.js')).runMcp(args) : await (await import('../cli/main.js')).runCli(args, entryPoints);
