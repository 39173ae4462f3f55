import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths, type TabmuxPaths } from '../../electron/core/platform/paths.js';
import type { Teardown } from './Teardown.js';

export interface BenchHome {
  home: string;
  paths: TabmuxPaths;
  env: Record<string, string>;
}

/** A fresh TABMUX_HOME under the temp dir (short, so socket paths stay under the ~104-byte limit), removed at teardown. */
export function makeBenchHome(teardown: Teardown, prefix = 'tmxb-'): BenchHome {
  const home = mkdtempSync(join(tmpdir(), prefix));
  teardown.add(`remove ${home}`, () => rmSync(home, { recursive: true, force: true }));
  const env = { TABMUX_HOME: home };
  return { home, paths: resolvePaths(env), env };
}
