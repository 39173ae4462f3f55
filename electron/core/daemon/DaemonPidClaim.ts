import { TabmuxError } from '../../../shared/errors.js';
import { LaunchedBrowser } from '../browser/LaunchedBrowser.js';
import type { ProfileBrowser } from '../browser/ProfileBrowser.js';
import { pidFilePath, profileUserDataDir, type TabmuxPaths } from '../platform/paths.js';
import { ClaimFile } from '../process/ClaimFile.js';
import { clearStopRequest } from '../lifecycle/stopRequest.js';

/**
 * The profile's pid file, which its daemon holds for its whole life: no other daemon runs on the profile meanwhile
 * (see ClaimFile). It also names the Chrome tabmux launched, for a later daemon to adopt or stop.
 */
export class DaemonPidClaim {
  /** What dead daemons left in the pid file this daemon took over: their Chrome is stopped before this one starts. */
  readonly replaced: unknown[];
  readonly #claim: ClaimFile;
  readonly #paths: TabmuxPaths;
  readonly #profile: string;
  readonly #startedAt: number;

  private constructor(claim: ClaimFile, replaced: unknown[], paths: TabmuxPaths, profile: string, startedAt: number) {
    this.#claim = claim;
    this.replaced = replaced;
    this.#paths = paths;
    this.#profile = profile;
    this.#startedAt = startedAt;
  }

  /** Claims the profile's pid file; fails with `daemon_running`, having touched nothing, when a running daemon holds it. */
  static async acquire(paths: TabmuxPaths, profile: string, startedAt: number): Promise<DaemonPidClaim> {
    const outcome = await ClaimFile.acquire(pidFilePath(paths, profile), pidRecord(paths, profile, null, startedAt));
    if ('holder' in outcome) {
      throw new TabmuxError(
        'daemon_running',
        `a daemon for profile ${profile} is already running (pid ${outcome.holder.pid}); use it, or stop it with: tabmux daemon stop --profile ${profile}`,
      );
    }
    await clearStopRequest(paths, profile).catch(() => undefined);
    return new DaemonPidClaim(outcome.claim, outcome.replaced, paths, profile, startedAt);
  }

  /** Writes the browser's Chrome into the pid file, as it runs now. */
  async record(browser: ProfileBrowser): Promise<void> {
    // Only a Chrome tabmux launched is ever recorded, so a later daemon never adopts or stops a browser it does not own.
    const chrome = browser instanceof LaunchedBrowser ? browser.record() : { chromePid: null, chromePort: null, watchdogPid: null };
    await this.#claim.update({ ...pidRecord(this.#paths, this.#profile, chrome.chromePid, this.#startedAt), chromePort: chrome.chromePort, watchdogPid: chrome.watchdogPid });
  }

  /** Removes the pid file if it is still this daemon's. */
  release(): Promise<void> {
    return this.#claim.release();
  }
}

/** The pid file's record, less what the claim adds (pid, process identity, claim id); see DaemonPidFile.ts. */
function pidRecord(paths: TabmuxPaths, profile: string, chromePid: number | null, startedAt: number): Record<string, unknown> {
  return { chromePid, userDataDir: profileUserDataDir(paths, profile), startedAt };
}
