/**
 * Bundles the `tabmux` command (dist/electron/bin/tabmux.js, which tsc wrote a moment before) into one file plus
 * chunks that load on demand: a Node process that starts a short CLI command reads a few files instead of resolving
 * hundreds, and never loads the daemon's or the dashboard's code. The libraries go into the chunks too (zod, ws,
 * puppeteer-core's CDP connection): loading a hundred small modules makes Node's module loader itself hot enough to
 * be compiled, and keeps their whole text in memory, which a long-lived daemon pays for in resident size.
 * chrome-devtools-mcp is only ever started as a process of its own, and the MCP SDK is not loaded at run time.
 *
 * Two kinds of command are built on their own (see electron/cli/ownBuilds.ts), and the entry loads their file and
 * nothing else:
 * - mcp.cjs, the commands agents run (`mcp serve`, `mcp call`, `mcp batch`, `mcp list`, and `session create` and
 *   `daemon start`, which scripts run first): every new agent chat starts a bridge, and scripts run `mcp call` once
 *   per step. It is CommonJS, in one file: Node loads it without its ES module loader (whose start, and the module
 *   facades it builds for Node's own modules, are several milliseconds of such a process).
 * - daemon.cjs, `daemon run`: one file with the daemon's code and its libraries. A long-lived process holds only
 *   what serves agents, and its start resolves one file instead of a few dozen (enough path handling in Node's
 *   module loader to get it optimized, and the optimizing compiler's pages into the daemon's memory). It is
 *   CommonJS, like mcp.cjs: a process that never loads an ES module never starts Node's ES module loader, whose
 *   modules, code and the parts of the node executable they run stay in a process's memory for good (~3 MiB
 *   resident here; `npm run bench`, the memory rows).
 *
 * The installed command (package.json "bin") is tabmux.cjs, a CommonJS launcher: an agent's command then starts
 * without the ES module loader at all. Every other command goes on in tabmux.js, which stays the entry for
 * `node dist/electron/bin/tabmux.js`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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

/** CommonJS builds: `require` is Node's own, and `import.meta.url` is this file's URL (electron/bin/importMetaUrl.ts). */
const commonJs = {
  ...common,
  format: 'cjs',
  banner: {},
  define: { 'import.meta.url': 'importMetaUrl' },
  inject: ['electron/bin/importMetaUrl.ts'],
  outExtension: { '.js': '.cjs' },
};

/**
 * Imports of the given source files (or only dynamic imports of them) get a module that stands for another file of the
 * build instead: `module.exports` of `require(file)`, or of a property of it.
 */
function standIn(pluginBuild, { name, sources, dynamicOnly, file, property = '' }) {
  const wanted = new Set(sources.map((source) => resolve(source)));
  pluginBuild.onResolve({ filter: /\.js$/ }, (args) => {
    const source = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
    return wanted.has(source) && (!dynamicOnly || args.kind === 'dynamic-import') ? { path: name, namespace: 'stand-in' } : undefined;
  });
  pluginBuild.onLoad({ filter: new RegExp(`^${name}$`), namespace: 'stand-in' }, () => ({ contents: `module.exports = require(${JSON.stringify(file)})${property};`, loader: 'js' }));
  // The file it requires is the build's own, next to it: never bundled.
  pluginBuild.onResolve({ filter: new RegExp(`^${file.replaceAll('.', '\\.')}$`) }, (args) => ({ path: args.path, external: true }));
}

/**
 * In mcp.cjs, what the agents' commands import only on a rare path (the modules electron/bin/mcpLazy.ts gathers) is
 * mcp-lazy.cjs, required when first imported: in a CommonJS build a dynamic import would otherwise put its code, the
 * schema library's included, into the one file every `mcp serve` and `mcp call` reads.
 */
const agentsLazyPart = {
  name: 'agents-lazy-part',
  setup(pluginBuild) {
    // The modules are the ones mcpLazy.ts re-exports whole, so the list is written in one place.
    const lazyEntry = 'electron/bin/mcpLazy.ts';
    const sources = [...readFileSync(lazyEntry, 'utf8').matchAll(/^export \* from '([^']+)';$/gm)].map((match) =>
      resolve(dirname(lazyEntry), match[1].replace(/\.js$/, '.ts')),
    );
    standIn(pluginBuild, { name: 'lazy', sources, dynamicOnly: true, file: './mcp-lazy.cjs' });
  },
};

/** In mcp-lazy.cjs, the errors module is mcp.cjs's, so both parts throw and recognise the same TabmuxError. */
const errorsOfTheAgentsBuild = {
  name: 'errors-of-the-agents-build',
  setup(pluginBuild) {
    standIn(pluginBuild, { name: 'errors', sources: ['shared/errors.ts'], dynamicOnly: false, file: './mcp.cjs', property: '.sharedErrors' });
  },
};

/**
 * For the daemon's build: of chrome-devtools-mcp, only its snapshot formatter may be bundled. Any other import of the
 * package fails the build instead of bundling upstream's server into the daemon.
 */
const onlyUpstreamsFormatter = {
  name: 'only-upstreams-formatter',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^chrome-devtools-mcp(\/|$)/ }, (args) =>
      args.path === 'chrome-devtools-mcp/build/src/formatters/SnapshotFormatter.js'
        ? undefined
        : { errors: [{ text: `the daemon's build bundles only upstream's snapshot formatter, not ${args.path}` }] },
    );
  },
};

/**
 * For the daemon's build: ws requires Node's TLS, HTTPS and zlib modules as it loads, for wss:// endpoints and for
 * compressed messages. The daemon's CDP connections are ws:// to a local Chrome, without compression, unless a
 * profile names a remote wss:// endpoint: each of those modules is loaded when ws first uses it instead, so a daemon
 * that never needs them never holds their code (about 0.5 MiB resident here, in side-by-side runs of the memory rows).
 */
const wsModulesOnFirstUse = {
  name: 'ws-modules-on-first-use',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^(https|tls|zlib)$/ }, (args) =>
      /[\\/]node_modules[\\/]ws[\\/]/.test(args.importer) ? { path: args.path, namespace: 'on-first-use' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'on-first-use' }, (args) => ({
      contents:
        `let loaded; const real = () => (loaded ??= require(${JSON.stringify(`node:${args.path}`)}));` +
        'module.exports = new Proxy({}, { get: (_, key) => real()[key], has: (_, key) => key in real(), ownKeys: () => Reflect.ownKeys(real()),' +
        ' getOwnPropertyDescriptor: (_, key) => { const found = Object.getOwnPropertyDescriptor(real(), key); return found && { ...found, configurable: true }; } });',
      loader: 'js',
    }));
  },
};

rmSync(`${OUT_DIR}/chunks`, { recursive: true, force: true });
// The entries load mcp.cjs, daemon.cjs and (the launcher) tabmux.js by their place in the package at run time
// (electron/bin/ownBuildRun.ts), never as chunks of their own.
await build({ ...common, entryPoints: { tabmux: 'electron/bin/tabmux.ts' }, splitting: true, chunkNames: 'chunks/[name]-[hash]' });
await build({ ...commonJs, entryPoints: { tabmux: 'electron/bin/launcher.ts' } });
await build({ ...commonJs, entryPoints: { mcp: 'electron/bin/mcp.ts' }, plugins: [agentsLazyPart] });
await build({ ...commonJs, entryPoints: { 'mcp-lazy': 'electron/bin/mcpLazy.ts' }, plugins: [errorsOfTheAgentsBuild] });
// One file: what the daemon loads only on some paths (the CDP connection's modules, pictures) is wrapped there so
// that it runs only when first used.
// Upstream's snapshot formatter (one file with no imports; the daemon renders snapshots with it, byte for byte as its
// workers do) is bundled too: required from the installed package, an ES module, it would start Node's ES module
// loader in the daemon after all. The package's version is pinned, so it is the same code its workers run.
await build({
  ...commonJs,
  entryPoints: { daemon: 'electron/bin/daemon.ts' },
  external: common.external.filter((name) => name !== 'chrome-devtools-mcp'),
  plugins: [onlyUpstreamsFormatter, wsModulesOnFirstUse],
});
