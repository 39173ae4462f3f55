import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../electron/core/platform/version.js';

/**
 * Give to `node --import`: the process then logs every module it loads to the file named by
 * TABMUX_TEST_MODULE_LOG (see moduleLog.mjs).
 */
export const MODULE_LOG = join(packageRoot(), 'tests', 'helpers', 'moduleLog.mjs');

/** The files (file: URLs) the processes that wrote a module log loaded, each once, the logging hooks left out. */
export async function modulesLoaded(log: string): Promise<string[]> {
  return [...new Set((await logLines(log)).filter((url) => url.startsWith('file:') && !url.includes('/tests/helpers/')))];
}

/** Node's own modules (`tls`, `internal/url`…) the processes that wrote a module log had loaded when they exited. */
export async function builtinsLoaded(log: string): Promise<string[]> {
  return [...new Set((await logLines(log)).filter((line) => line.startsWith('node:')).map((line) => line.slice('node:'.length)))];
}

async function logLines(log: string): Promise<string[]> {
  return (await readFile(log, 'utf8')).split('\n');
}
