import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../cli/main.js';
import { packageRoot } from '../core/platform/version.js';
import { entryPoints } from './entryPoints.js';

/**
 * `npm start`: the tray app where Electron can run, the web dashboard everywhere else, so the UI always comes up.
 * Electron's binary is looked up on disk, never through require('electron'), which would try to download it.
 */

function electronBinary(root: string): string | { missing: string } {
  const dir = join(root, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) {
    return { missing: 'the Electron binary is not installed (run: node node_modules/electron/install.js)' };
  }
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : { missing: `the Electron binary is missing at ${binary}` };
}

function displayProblem(): string | undefined {
  if (process.platform !== 'linux') {
    return undefined;
  }
  return process.env['DISPLAY'] || process.env['WAYLAND_DISPLAY'] ? undefined : 'no display is available (DISPLAY and WAYLAND_DISPLAY are unset)';
}

const root = packageRoot();
const binary = electronBinary(root);
const problem = typeof binary === 'string' ? displayProblem() : binary.missing;

if (problem === undefined && typeof binary === 'string') {
  const child = spawn(binary, [join(root, 'dist', 'electron-app', 'main.cjs'), ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => child.kill(signal));
  }
} else {
  // stderr, so the first line of stdout stays the dashboard's link for scripts.
  process.stderr.write(`tabmux: not opening the tray app because ${problem ?? 'Electron cannot run here'}; serving the web dashboard instead.\n`);
  process.exitCode = await runCli(['dashboard', ...process.argv.slice(2)], entryPoints);
}
