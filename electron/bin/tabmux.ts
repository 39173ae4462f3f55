#!/usr/bin/env node
import { entryPoints } from './entryPoints.js';

const args = process.argv.slice(2);
// `mcp serve` (every new agent chat starts one) loads its own file and nothing else; the full command table, and
// the schemas the other commands parse with, are for everything else.
process.exitCode = args[0] === 'mcp' && args[1] === 'serve' ? await (await import('./serve.js')).serve(args) : await (await import('../cli/main.js')).runCli(args, entryPoints);
