import type { Logger } from '../platform/Logger.js';
import { join } from 'node:path';
import { profileDataDir, profileUserDataDir, type TabmuxPaths } from '../platform/paths.js';
import type { ProfileConfig, ProfileEntry } from '../profile/ProfileStore.js';
import { chromeExtraArgs, orphanGraceMs, resolveHeadless } from '../profile/settings.js';
import { ExternalBrowser } from './ExternalBrowser.js';
import type { ExternalEndpoint } from './externalEndpoint.js';
import { StartCommand } from './StartCommand.js';
import { LaunchedBrowser } from './LaunchedBrowser.js';
import type { ProfileBrowser, ProfileBrowserHooks } from './ProfileBrowser.js';

export interface BrowserForProfileOptions extends ProfileBrowserHooks {
  logger: Logger;
  /** `--chrome`: overrides the profile's Chrome binary. */
  chrome?: string | undefined;
  /** `--headless` / `--no-headless`: overrides the profile and the environment. */
  headless?: boolean | undefined;
}

/** The browser a profile's config asks for: one it connects to (`browserUrl`, `wsEndpoint`), or else a Chrome it launches. */
export function browserForProfile(paths: TabmuxPaths, profile: ProfileEntry, options: BrowserForProfileOptions): ProfileBrowser {
  const endpoint = externalEndpointOf(profile.config);
  if (endpoint !== undefined) {
    const { startCommand } = profile.config;
    return new ExternalBrowser({
      endpoint,
      logger: options.logger,
      prepare: options.prepare,
      ...(startCommand === undefined
        ? {}
        : { startCommand: new StartCommand(startCommand, join(profileDataDir(paths, profile.name), 'start-command.log'), options.logger.child('start-command')) }),
    });
  }
  return new LaunchedBrowser({
    chrome: options.chrome ?? profile.config.chrome,
    userDataDir: profileUserDataDir(paths, profile.name),
    headless: resolveHeadless(options.headless, profile.config),
    extraArgs: chromeExtraArgs(profile.config),
    orphanGraceMs: orphanGraceMs(profile.config),
    logger: options.logger,
    prepare: options.prepare,
  });
}

/** The external browser a profile's config names, if any. */
export function externalEndpointOf(config: ProfileConfig): ExternalEndpoint | undefined {
  if (config.wsEndpoint !== undefined) {
    return { kind: 'wsEndpoint', url: config.wsEndpoint, headers: config.wsHeaders ?? {} };
  }
  if (config.browserUrl !== undefined) {
    return { kind: 'browserUrl', url: config.browserUrl };
  }
  return undefined;
}
