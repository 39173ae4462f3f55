/**
 * Bundles the `tabmux` command (dist/electron/bin/tabmux.js, which tsc wrote a moment before) into one file plus
 * chunks that load on demand: a Node process that starts `tabmux mcp serve` or a short CLI command reads a few files
 * instead of resolving hundreds, and never loads the daemon's or the dashboard's code. The daemon's heavy
 * dependencies stay in node_modules (puppeteer-core, the MCP SDK, chrome-devtools-mcp, ws), loaded only by the
 * daemon, exactly as they are resolved without the bundle. So does zod: the MCP SDK imports it too, and one copy
 * in a process is half the memory and load time of two.
 */
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const OUT_DIR = 'dist/electron/bin';

rmSync(`${OUT_DIR}/chunks`, { recursive: true, force: true });
await build({
  entryPoints: { tabmux: 'electron/bin/tabmux.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: OUT_DIR,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['zod', '@modelcontextprotocol/sdk', 'puppeteer-core', 'chrome-devtools-mcp', 'ws', 'electron', 'bufferutil', 'utf-8-validate'],
  allowOverwrite: true,
  sourcemap: true,
  logLevel: 'warning',
});
