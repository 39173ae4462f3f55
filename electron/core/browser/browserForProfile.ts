import type { Logger } from '../Logger.js';
import { profileUserDataDir, type TabmuxPaths } from '../paths.js';
import type { ProfileEntry } from '../ProfileStore.js';
import { chromeExtraArgs, resolveHeadless } from '../settings.js';
import { ExternalBrowser } from './ExternalBrowser.js';
import { LaunchedBrowser } from './LaunchedBrowser.js';
import type { ProfileBrowser, ProfileBrowserHooks } from './ProfileBrowser.js';

export interface BrowserForProfileOptions extends ProfileBrowserHooks {
  logger: Logger;
  /** `--chrome`: overrides the profile's Chrome binary. */
  chrome?: string | undefined;
  /** `--headless` / `--no-headless`: overrides the profile and the environment. */
  headless?: boolean | undefined;
}

/** The browser a profile's config asks for: one it connects to (`browserUrl`), or else a Chrome it launches. */
export function browserForProfile(paths: TabmuxPaths, profile: ProfileEntry, options: BrowserForProfileOptions): ProfileBrowser {
  const { browserUrl } = profile.config;
  if (browserUrl !== undefined) {
    return new ExternalBrowser({ browserUrl, logger: options.logger, prepare: options.prepare });
  }
  return new LaunchedBrowser({
    chrome: options.chrome ?? profile.config.chrome,
    userDataDir: profileUserDataDir(paths, profile.name),
    headless: resolveHeadless(options.headless, profile.config),
    extraArgs: chromeExtraArgs(profile.config),
    logger: options.logger,
    prepare: options.prepare,
  });
}
