import { BROWSER_PULSE_MS, BrowserPulse } from '../browser/BrowserPulse.js';
import type { Logger } from '../platform/Logger.js';
import type { TabIdentity } from './TabIdentity.js';

/**
 * The browser's pulse for a router: asked on the browser's own connection (a browser the daemon is not connected to
 * now is not asked, and counts as answering: that is told as its own state), its silences logged and told to `changed`.
 */
export function routerPulse(tabs: TabIdentity, logger: Logger, changed: ((silentSince: number | null) => void) | undefined): BrowserPulse {
  let since: number | null = null;
  return new BrowserPulse({
    ask: (withinMs) => tabs.browser?.browserAnswers?.(withinMs) ?? Promise.resolve(true),
    changed: (silentSince) => {
      if (silentSince === null) {
        logger.info(`the browser answers again, after ${Math.round((Date.now() - (since ?? Date.now())) / 1000)} s`);
      } else {
        logger.warn(
          `the browser has not answered for ${BROWSER_PULSE_MS / 1000} s: every call on this profile waits on it (a page keeping it busy without a break, a paused Chrome or an overloaded machine)`,
        );
      }
      since = silentSince;
      changed?.(silentSince);
    },
  });
}
