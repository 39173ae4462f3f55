import type { Logger } from '../Logger.js';
import { profileUserDataDir, type TabmuxPaths } from '../paths.js';
import type { ProfileEntry } from '../ProfileStore.js';
import { chromeExtraArgs, resolveHeadless } from '../settings.js';
import { LaunchedBrowser } from './LaunchedBrowser.js';
import type { ProfileBrowser, ProfileBrowserHooks } from './ProfileBrowser.js';

export interface BrowserForProfileOptions extends ProfileBrowserHooks {
  logger: Logger;
  /** `--chrome`: overrides the profile's Chrome binary. */
  chrome?: string | undefined;
  /** `--headless` / `--no-headless`: overrides the profile and the environment. */
  headless?: boolean | undefined;
}

/** The browser a profile's config asks for. Every profile launches its own Chrome today. */
export function browserForProfile(paths: TabmuxPaths, profile: ProfileEntry, options: BrowserForProfileOptions): ProfileBrowser {
  return new LaunchedBrowser({
    chrome: options.chrome ?? profile.config.chrome,
    userDataDir: profileUserDataDir(paths, profile.name),
    headless: resolveHeadless(options.headless, profile.config),
    extraArgs: chromeExtraArgs(profile.config),
    logger: options.logger,
    prepare: options.prepare,
  });
}
