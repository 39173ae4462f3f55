/**
 * Bundles the `tabmux` command (dist/electron/bin/tabmux.js, which tsc wrote a moment before) into one file plus
 * chunks that load on demand: a Node process that starts a short CLI command reads a few files instead of resolving
 * hundreds, and never loads the daemon's or the dashboard's code. The libraries go into the chunks too (zod, ws,
 * puppeteer-core's CDP connection): loading a hundred small modules makes Node's module loader itself hot enough to
 * be compiled, and keeps their whole text in memory, which a long-lived daemon pays for in resident size.
 * chrome-devtools-mcp is only ever started as a process of its own, and the MCP SDK is not loaded at run time.
 *
 * Two kinds of command are built on their own (see electron/cli/ownBuilds.ts), and tabmux.js loads their file and
 * nothing else:
 * - mcp.js, the commands agents run (`mcp serve`, `mcp call`, `mcp batch`, `mcp list`): every new agent chat starts
 *   a bridge, and scripts run `mcp call` once per step.
 * - daemon.js, `daemon run`: one file with the daemon's code and its libraries. A long-lived process holds only
 *   what serves agents, and its start resolves one file instead of a few dozen (enough path handling in Node's
 *   module loader to get it optimized, and the optimizing compiler's pages into the daemon's memory).
 */
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const OUT_DIR = 'dist/electron/bin';

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: OUT_DIR,
  external: ['@modelcontextprotocol/sdk', 'chrome-devtools-mcp', 'electron', 'bufferutil', 'utf-8-validate'],
  // ws is CommonJS and requires Node's modules by name; each output file gets a `require` of its own for that.
  banner: { js: "import { createRequire as __tabmuxCreateRequire } from 'node:module'; const require = __tabmuxCreateRequire(import.meta.url);" },
  // A process keeps the text of every file it loads; names stay, so stack traces in logs still read.
  minifyWhitespace: true,
  minifySyntax: true,
  allowOverwrite: true,
  sourcemap: true,
  logLevel: 'warning',
};

/** tabmux.js loads mcp.js and daemon.js as the separate files built below, not as chunks of its own. */
const ownBuildsStayOutside = {
  name: 'own-builds-stay-outside',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\/(mcp|daemon)\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};

rmSync(`${OUT_DIR}/chunks`, { recursive: true, force: true });
await build({ ...common, entryPoints: { tabmux: 'electron/bin/tabmux.ts' }, splitting: true, chunkNames: 'chunks/[name]-[hash]', plugins: [ownBuildsStayOutside] });
// What they load only on a rare path (the protocol's schemas, for `tabmux/status`, a session_id call or starting a
// daemon; a batch script's schema) stays in chunks of its own.
await build({ ...common, entryPoints: { mcp: 'electron/bin/mcp.ts' }, splitting: true, chunkNames: 'chunks/mcp-[name]-[hash]' });
// One file: what the daemon loads only on some paths (the CDP connection's modules, pictures) is wrapped there so
// that it runs only when first used.
await build({ ...common, entryPoints: { daemon: 'electron/bin/daemon.ts' }, splitting: false });
