import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';

type Env = Readonly<Record<string, string | undefined>>;

const LINUX_NAMES = ['google-chrome', 'google-chrome-stable', 'chromium', 'chromium-browser', 'google-chrome-beta', 'microsoft-edge'];
const LINUX_PATHS = ['/opt/google/chrome/chrome', '/snap/bin/chromium', '/usr/lib/chromium/chromium'];
const MAC_PATHS = [
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary',
];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The usual install locations, in order; made one at a time, as the search stops at the first that exists. */
function* candidates(env: Env, platform: NodeJS.Platform): Generator<string> {
  if (platform === 'darwin') {
    const home = env['HOME'];
    yield* MAC_PATHS;
    if (home) {
      yield* MAC_PATHS.map((p) => join(home, p));
    }
    return;
  }
  if (platform === 'win32') {
    for (const root of [env['PROGRAMFILES'], env['PROGRAMFILES(X86)'], env['LOCALAPPDATA']]) {
      if (root) {
        yield join(root, 'Google', 'Chrome', 'Application', 'chrome.exe');
        yield join(root, 'Chromium', 'Application', 'chrome.exe');
      }
    }
    return;
  }
  // Joined as strings: a PATH lists directories, and normalizing each of the few dozen candidates (path.join) is
  // enough work at a daemon's start to get Node's path code compiled by the optimizing compiler, whose pages then
  // stay in the daemon's memory.
  const dirs = (env['PATH'] ?? '').split(delimiter).filter(Boolean);
  for (const name of LINUX_NAMES) {
    for (const dir of dirs) {
      yield dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
    }
  }
  yield* LINUX_PATHS;
}

/**
 * Finds the Chrome to launch: an explicit path (`--chrome` or the profile's config) first, then `TABMUX_CHROME`,
 * then the usual install locations for the platform.
 */
export function findChrome(explicit: string | undefined, env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const chosen = explicit ?? env['TABMUX_CHROME'];
  if (chosen) {
    if (!isExecutable(chosen)) {
      throw new TabmuxError('chrome_not_found', `Chrome not found at ${chosen}; check the path given by --chrome, the profile config or TABMUX_CHROME`);
    }
    return chosen;
  }
  for (const candidate of candidates(env, platform)) {
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  throw new TabmuxError(
    'chrome_not_found',
    'no Chrome or Chromium found; install one (for example `apt-get install chromium`) or point to it with --chrome PATH or TABMUX_CHROME',
  );
}
