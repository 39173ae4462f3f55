#!/usr/bin/env node
import { entryPoints } from './entryPoints.js';

/** `tabmux mcp serve` alone: every new agent chat starts one, so it loads its own command and nothing else. */
async function runServe(args: readonly string[]): Promise<number> {
  const [{ runCommand }, { mcpServe }] = await Promise.all([import('../cli/runCommand.js'), import('../cli/mcpServe.js')]);
  return runCommand(args, [mcpServe], entryPoints);
}

const args = process.argv.slice(2);
// The full command table (and the schemas the other commands parse with) is for everything else.
process.exitCode = args[0] === 'mcp' && args[1] === 'serve' ? await runServe(args) : await (await import('../cli/main.js')).runCli(args, entryPoints);
