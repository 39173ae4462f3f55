import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths, type TabmuxPaths } from '../../electron/core/platform/paths.js';

/** A fresh TABMUX_HOME under the temp dir (short, so socket paths stay under the length limit). */
export function makeTestHome(): { home: string; paths: TabmuxPaths; env: Record<string, string>; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'tmx-'));
  const env = { TABMUX_HOME: home };
  return { home, paths: resolvePaths(env), env, cleanup: () => removeHome(home) };
}

/** An existing TABMUX_HOME, as a restarted daemon finds it; removed by `cleanup`. */
export function reuseTestHome(home: string): { home: string; paths: TabmuxPaths; env: Record<string, string>; cleanup: () => void } {
  const env = { TABMUX_HOME: home };
  return { home, paths: resolvePaths(env), env, cleanup: () => removeHome(home) };
}

/**
 * Removes a test home. A Chrome that was just killed can still have helper processes finishing writes into its
 * profile, so a folder that fills again while it is removed is retried rather than failing the test.
 */
function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
