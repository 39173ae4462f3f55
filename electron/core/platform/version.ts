import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The tabmux package root, found by walking up from this file (works from sources and from dist/). Found once: a
 * daemon asks for it for every worker it starts.
 */
export function packageRoot(): string {
  root ??= findPackageRoot();
  return root;
}

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const json: unknown = JSON.parse(readFileSync(candidate, 'utf8'));
      if (typeof json === 'object' && json !== null && 'name' in json && json.name === 'tabmux') {
        return dir;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error('cannot find the tabmux package root');
    }
    dir = parent;
  }
}

let cached: string | undefined;

export function tabmuxVersion(): string {
  if (cached === undefined) {
    const json: unknown = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
    cached = typeof json === 'object' && json !== null && 'version' in json && typeof json.version === 'string' ? json.version : '0.0.0';
  }
  return cached;
}

/** A compiled file of the `tabmux` command (dist/electron/bin, see scripts/bundleCli.mjs), by its name there. */
export function binFile(name: string): string {
  return join(packageRoot(), 'dist', 'electron', 'bin', name);
}

/** The compiled entry point of a worker started before its browser is known (electron/bin/upstreamLauncher.ts). */
/** What an upstream worker needs of the runtime beyond Node 20 (electron/bin/workerRuntime.ts). */
export function workerRuntimePath(): string {
  return binFile('workerRuntime.js');
}

export function upstreamLauncherPath(): string {
  return binFile('upstreamLauncher.js');
}

/** The installed `tabmux` command (package.json "bin"; electron/bin/launcher.ts), used to spawn daemons. */
export function cliEntryPoint(): string {
  return binFile('tabmux.cjs');
}
