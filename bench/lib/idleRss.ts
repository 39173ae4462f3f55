import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../electron/core/version.js';
import { rssKib } from './procStatus.js';
import { summarize, type Summary } from './stats.js';

/** A file of the package (`dist/...`), imported by its URL. */
export function packageFile(path: string): string {
  return pathToFileURL(join(packageRoot(), path)).href;
}

/**
 * Resident size of a Node process that imports `modules` (package names, or `packageFile` URLs) and then idles, read
 * as the daemon's is: a floor to set the daemon's own figure against on the same machine, in the same run.
 */
export async function idleNodeRss(modules: readonly string[], readings = 5): Promise<Summary> {
  const load = modules.map((module) => `await import(${JSON.stringify(module)});`).join(' ');
  const child = spawn(process.execPath, ['--input-type=module', '-e', `${load} process.stdout.write('ready\\n'); setInterval(() => {}, 1000);`], {
    cwd: packageRoot(),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`idle Node process exited with code ${String(code)}`)));
    });
    const values: number[] = [];
    for (let index = 0; index < readings; index++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const kib = child.pid === undefined ? undefined : await rssKib(child.pid);
      if (kib !== undefined) {
        values.push(kib / 1024);
      }
    }
    return summarize(values);
  } finally {
    child.kill();
  }
}
