import { join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import type { DownloadsInfo } from '../../../shared/model.js';
import { BrowserContexts } from '../browser/BrowserContexts.js';
import { BrowserDownloads } from '../browser/BrowserDownloads.js';
import { BrowserTabs } from '../browser/BrowserTabs.js';
import { ControlSurfaceGuard } from '../browser/ControlSurfaceGuard.js';
import { NO_FILES, USER_FILES, type FileScope } from '../browser/fileAccess.js';
import type { BrowserRun, ProfileBrowser } from '../browser/ProfileBrowser.js';
import { createUrlPolicy, type UrlPolicy } from '../browser/urlPolicy.js';
import { DashboardRegistry } from '../dashboard/DashboardRegistry.js';
import type { TabPictures } from '../pictures/TabPictures.js';
import type { Logger } from '../platform/Logger.js';
import { profileDownloadsDir, profileDownloadStagingDir, profileFilesDir, type TabmuxPaths } from '../platform/paths.js';
import type { ProfileEntry } from '../profile/ProfileStore.js';
import type { Router } from '../router/Router.js';
import { DOWNLOADS_SUBFOLDER } from '../router/sessionDownloads.js';
import { sessionFolder } from '../router/sessionFiles.js';
import { downloadSettings } from './daemonSettings.js';
import { shownUrl } from '../../../shared/shownUrl.js';

export interface BrowserRunsOptions {
  paths: TabmuxPaths;
  profile: ProfileEntry;
  logger: Logger;
  /** A browser tabmux launched, or one it did not (the user's own, a remote engine). */
  browserKind: ProfileBrowser['kind'];
  router: Router;
  pictures: TabPictures;
}

/**
 * What each run of the profile's browser gets before anyone is served on it, and loses when it ends: the guard that
 * keeps every tab away from the browser's DevTools endpoint, tabmux's files and its dashboards (whose ports it
 * follows as they come and go), the URL policy agents navigate by, the tabs as the browser reports them, and where
 * downloads go.
 */
export class BrowserRuns {
  readonly #options: BrowserRunsOptions;
  /** The current run's URL policy; undefined between runs. */
  #policy: UrlPolicy | undefined;
  /** The current run's guard, which follows the dashboards' ports. */
  #guard: ControlSurfaceGuard | undefined;
  /** Where tabmux's dashboards listen now: no tab of this browser reaches them (see DashboardRegistry). */
  readonly #dashboards: DashboardRegistry;
  #dashboardPorts: ReadonlySet<number> = new Set();
  #dashboardsRead: Promise<unknown> = Promise.resolve();
  #dashboardsWatch: { close: () => void } | undefined;

  constructor(options: BrowserRunsOptions) {
    this.#options = options;
    this.#dashboards = new DashboardRegistry(options.paths);
  }

  /** What agents may navigate to on the current run; undefined until a run is prepared. */
  get policy(): UrlPolicy | undefined {
    return this.#policy;
  }

  /** Before the browser starts, so its first run is guarded against every dashboard running now or started later. */
  async watchDashboards(): Promise<void> {
    const { logger } = this.#options;
    this.#dashboardsWatch = await this.#dashboards.watch(() => void this.refreshDashboards().catch((error: unknown) => logger.warn(`dashboards: ${TabmuxError.from(error).message}`)));
    await this.refreshDashboards();
  }

  /** The run ended (Chrome exited, the connection closed): its guard goes with it. */
  lost(): void {
    this.#guard = undefined;
  }

  close(): void {
    this.#dashboardsWatch?.close();
  }

  /**
   * Every browser run, before anyone is served on it: the tabs from the daemon's own connection, and the guard that
   * keeps every tab away from the browser's control surface and tabmux's files. A guard that cannot be installed
   * fails the run; agents are never served on an unguarded browser.
   */
  async prepare(run: BrowserRun): Promise<void> {
    const { paths, logger, router } = this.#options;
    router.watchTabs(undefined);
    this.#policy = undefined;
    this.#guard = undefined;
    const dashboardPorts = (): ReadonlySet<number> => this.#dashboardPorts;
    const policy = createUrlPolicy({ debuggingPort: run.debuggingPort, protectedRoots: [paths.configDir, paths.dataDir, paths.runtimeDir], dashboardPorts });
    const guardLog = logger.child('guard');
    // Whose tab a file: request comes from, from the tabs the browser reports (watched below, before anyone is served).
    const watched: { tabs?: BrowserTabs } = {};
    const fileScope = (frameId: string): Promise<FileScope> => this.#fileScope(watched.tabs, frameId);
    try {
      // In a browser the user runs, only agents' tabs are reset: the user's own are never reset or closed.
      const guard = await ControlSurfaceGuard.install(
        run.connection,
        policy,
        run.debuggingPort,
        { refused: ({ url, reason, kind }) => guardLog.info(`refused ${kind} to ${shownUrl(url)}: ${reason}`) },
        this.#options.browserKind === 'external' ? { isAgentPage: (pageTargetId) => router.isAgentPage(pageTargetId), dashboardPorts, fileScope } : { dashboardPorts, fileScope },
      );
      this.#guard = guard;
      // A dashboard that came or went while the guard was installed.
      await guard.followPorts();
    } catch (error) {
      throw new TabmuxError(
        'browser_unavailable',
        `could not guard the browser's DevTools endpoint and tabmux's files (${TabmuxError.from(error).message}); nothing is served on an unguarded browser. Check the daemon log and start again`,
        { cause: error },
      );
    }
    this.#policy = policy;
    // Who opened which tab, and which tabs closed, come from the browser itself.
    const tabs = await BrowserTabs.watch(run.connection);
    watched.tabs = tabs;
    const downloads = await this.#watchDownloads(run, tabs);
    router.watchTabs(tabs, new BrowserContexts(run.connection, (id) => downloads?.prepareContext(id) ?? Promise.resolve()));
    // Tabs watched before a relaunch or reconnect are watched again on this run, as far as they still exist.
    void this.#options.pictures.useRun({ connection: run.connection, tabs });
  }

  /**
   * The files a frame's tab may read: a session's tab (or a popup of one) its own folder; in a browser the user runs,
   * a tab no session owns is the user's own; anything else, none.
   */
  async #fileScope(tabs: BrowserTabs | undefined, frameId: string): Promise<FileScope> {
    const tabId = await tabs?.tabOfFrame(frameId);
    const session = tabId === undefined ? undefined : this.#options.router.sessionOfTab(tabId);
    if (session) {
      return { kind: 'session', folder: sessionFolder(profileFilesDir(this.#options.paths, this.#options.profile.name), session.id) };
    }
    return tabId !== undefined && this.#options.browserKind === 'external' ? USER_FILES : NO_FILES;
  }

  /**
   * Where this run's downloads go, by whose tab started each (see BrowserDownloads). In a browser tabmux launched a
   * failure fails the run, as the guard's does: downloads would land in the user's own Downloads folder. A browser
   * tabmux does not run (a remote engine may not offer this) keeps its own behaviour, and the log says so.
   */
  async #watchDownloads(run: BrowserRun, tabs: BrowserTabs): Promise<BrowserDownloads | undefined> {
    const { paths, profile, logger } = this.#options;
    const log = logger.child('downloads');
    try {
      return await BrowserDownloads.install(run.connection, {
        browser: this.#options.browserKind,
        settings: downloadSettings(profile.config),
        stagingDir: profileDownloadStagingDir(paths, profile.name),
        unownedDir: profileDownloadsDir(paths, profile.name),
        ownerOf: async (frameId) => {
          const tabId = await tabs.tabOfFrame(frameId);
          return tabId === undefined ? 'untold' : ((await this.#options.router.downloadOwner(tabId)) ?? 'nobody');
        },
        logger: log,
      });
    } catch (error) {
      const why = TabmuxError.from(error).message;
      if (this.#options.browserKind === 'launched') {
        throw new TabmuxError('browser_unavailable', `could not set where Chrome's downloads go (${why}); nothing is served until they are. Check the daemon log and start again`, { cause: error });
      }
      log.warn(`the browser did not take tabmux's download settings (${why}); its downloads stay where it puts them`);
      return undefined;
    }
  }

  /** Where agents' downloads go, for status. */
  downloadsInfo(): DownloadsInfo {
    const { paths, profile } = this.#options;
    const settings = downloadSettings(profile.config);
    const external = this.#options.browserKind === 'external';
    return {
      mode: external ? 'cancelled' : settings.mode,
      maxBytes: settings.maxBytes,
      sessionMaxBytes: settings.sessionMaxBytes,
      sessionMaxFiles: settings.sessionMaxFiles,
      sessionFolder: join(profileFilesDir(paths, profile.name), '<session>', DOWNLOADS_SUBFOLDER),
      unownedFolder: external || settings.mode === 'off' ? null : profileDownloadsDir(paths, profile.name),
    };
  }

  /**
   * Reads the dashboards' records again and has the browser's guard follow their ports; returns them. Asked by the
   * folder's watcher, by each supervisor that starts a dashboard (`tabmux/dashboards.refresh`), and at start. The
   * ports come only from the records in the runtime dir, never from the caller.
   */
  refreshDashboards(): Promise<number[]> {
    const read = this.#dashboardsRead.then(async () => {
      const ports = await this.#dashboards.ports();
      this.#dashboardPorts = new Set(ports);
      await this.#guard?.followPorts();
      return ports;
    });
    this.#dashboardsRead = read.catch(() => undefined);
    return read;
  }
}
