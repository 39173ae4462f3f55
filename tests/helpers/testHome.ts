import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths, type TabmuxPaths } from '../../electron/core/paths.js';

/** A fresh TABMUX_HOME under the temp dir (short, so socket paths stay under the length limit). */
export function makeTestHome(): { home: string; paths: TabmuxPaths; env: Record<string, string>; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'tmx-'));
  const env = { TABMUX_HOME: home };
  return { home, paths: resolvePaths(env), env, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** An existing TABMUX_HOME, as a restarted daemon finds it; removed by `cleanup`. */
export function reuseTestHome(home: string): { home: string; paths: TabmuxPaths; env: Record<string, string>; cleanup: () => void } {
  const env = { TABMUX_HOME: home };
  return { home, paths: resolvePaths(env), env, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}
