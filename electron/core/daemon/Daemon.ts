import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonLifetime, DaemonStartedBy, DaemonStartup, DaemonState, DaemonStatus, DownloadsInfo } from '../../../shared/model.js';
import { PROTOCOL_VERSION } from '../../../shared/protocol.js';
import { BrowserContexts } from '../browser/BrowserContexts.js';
import { BrowserDownloads } from '../browser/BrowserDownloads.js';
import { BrowserTabs } from '../browser/BrowserTabs.js';
import { browserForProfile } from '../browser/browserForProfile.js';
import { ControlSurfaceGuard } from '../browser/ControlSurfaceGuard.js';
import type { BrowserEndpoint, BrowserRun, BrowserState, ProfileBrowser } from '../browser/ProfileBrowser.js';
import { lockingChrome, stopLeftoverChrome } from '../browser/stopLeftoverChrome.js';
import { findOrphanChrome } from '../browser/findOrphanChrome.js';
import { LaunchedBrowser } from '../browser/LaunchedBrowser.js';
import { createUrlPolicy, type UrlPolicy } from '../browser/urlPolicy.js';
import { ProfileStore } from '../profile/ProfileStore.js';
import { redactArgs } from '../activity/redactArgs.js';
import { NO_FILES, USER_FILES, type FileScope } from '../browser/fileAccess.js';
import { ControlService } from './ControlService.js';
import { DashboardRegistry } from '../dashboard/DashboardRegistry.js';
import { pictureLimits } from '../pictures/PictureLimits.js';
import { TabPictures } from '../pictures/TabPictures.js';
import type { Logger } from '../platform/Logger.js';
import {
  pidFilePath,
  profileActivityDir,
  profileDataDir,
  profileDownloadsDir,
  profileDownloadStagingDir,
  profileFilesDir,
  profileTempDir,
  profileUserDataDir,
  socketPath,
  type TabmuxPaths,
} from '../platform/paths.js';
import { daemonPidFileSchema } from '../lifecycle/DaemonPidFile.js';
import { ClaimFile } from '../process/ClaimFile.js';
import type { ProfileEntry } from '../profile/ProfileStore.js';
import { Router } from '../router/Router.js';
import { DOWNLOADS_SUBFOLDER } from '../router/sessionDownloads.js';
import { readSessionJournal, SessionJournal } from '../router/SessionJournal.js';
import { CallsInFlight, readCallsInFlight, type CallInFlight } from '../activity/CallsInFlight.js';
import { sessionFolder } from '../router/sessionFiles.js';
import { ensureSecureDir } from '../platform/secureFs.js';
import { activityLogSettings, downloadSettings, routerSettings } from './daemonSettings.js';
import { idleExitMs } from '../profile/settings.js';
import { IdleExit } from '../process/IdleExit.js';
import { formatDuration } from '../../../shared/daemonLifetime.js';
import { ActivityLogStore } from '../activity/ActivityLogStore.js';
import { ActivityRecorder } from '../activity/ActivityRecorder.js';
import { ActivityPictures } from '../activity/ActivityPictures.js';
import { readActivityLog, type ActivityFilter } from '../activity/readActivityLog.js';
import type { ActivityQueryResult } from '../../../shared/activity.js';
import { clearStaleSocket, SocketServer } from '../transport/SocketServer.js';
import { PreparedUpstream, UpstreamClient } from '../upstream/UpstreamClient.js';
import { tabmuxVersion } from '../platform/version.js';

export interface DaemonOptions {
  paths: TabmuxPaths;
  profile: ProfileEntry;
  logger: Logger;
  /** `--chrome`: overrides the profile's Chrome binary. */
  chrome?: string | undefined;
  /** `--headless` / `--no-headless`: overrides the profile and the environment. */
  headless?: boolean | undefined;
  /** Who started the daemon (`--started-by`); one started on demand exits when idle. Default: `daemon-run`. */
  startedBy?: DaemonStartedBy | undefined;
}

/** The browser's state as the daemon's, once the daemon is up. */
/** How long a reply waits at most for the session journal's write (a local file; a disk that hangs holds no reply longer). */
const JOURNAL_SETTLE_LIMIT_MS = 1000;

const FROM_BROWSER: Partial<Record<BrowserState, DaemonState>> = { ready: 'ready', degraded: 'degraded', crashed: 'crashed', connected: 'ready', disconnected: 'degraded', pending: 'ready' };

/**
 * One profile's daemon: the composition root that wires its browser, its router (with the upstream workers) and
 * the socket that agents and UIs reach it through. It outlives its clients; `stop()` tears everything down in
 * reverse order of creation.
 */
export class Daemon {
  state: DaemonState = 'starting';
  lastError: string | null = null;
  readonly startedAt: number;
  readonly router: Router;
  readonly #options: DaemonOptions;
  readonly #socketPath: string;
  /** The profile's pid file, which this daemon holds for its whole life: no other daemon runs on the profile meanwhile. */
  readonly #claim: ClaimFile;
  /** What dead daemons left in the pid file this daemon took over: their Chrome is stopped before this one starts. */
  readonly #replaced: unknown[];
  readonly #browser: ProfileBrowser;
  /** The current browser run's tabs and URL policy; replaced on every relaunch. */
  #policy: UrlPolicy | undefined;
  /** The current browser run's guard, which follows the dashboards' ports. */
  #guard: ControlSurfaceGuard | undefined;
  /** Where tabmux's dashboards listen now: no tab of this browser reaches them (see DashboardRegistry). */
  readonly #dashboards: DashboardRegistry;
  #dashboardPorts: ReadonlySet<number> = new Set();
  #dashboardsRead: Promise<unknown> = Promise.resolve();
  #dashboardsWatch: { close: () => void } | undefined;
  #server: SocketServer | undefined;
  /** The idle clock of a daemon started on demand, once it serves; undefined for one that runs until it is stopped. */
  #idle: IdleExit | undefined;
  /** Clients connected to the socket now. */
  #clients = 0;
  /** Connections that have not said their hello yet (see ControlService's `openingChanged`). */
  #opening = 0;
  /** Who started the daemon; `daemon start` on a daemon started on demand makes it one that stays (see `keep`). */
  #startedBy: DaemonStartedBy;
  /** Live pictures of tabs, for whoever watches; they follow the browser from run to run. */
  readonly #pictures: TabPictures;
  /** The activity log's writer; undefined when the profile turned the log off. */
  readonly #activity: { store: ActivityLogStore; recorder: ActivityRecorder; pictures: ActivityPictures } | undefined;
  #stopping: Promise<void> | undefined;
  /** The first worker, started while a launched Chrome starts, until the router takes it. */
  #preparedWorker: PreparedUpstream | undefined;
  readonly #stopped: Promise<void>;
  /** The sessions as they change, for a daemon that adopts this one's Chrome should this one die (see SessionJournal). */
  readonly #journal: SessionJournal;
  /** The calls under way, for a daemon started after this one died to log as cut off (with the activity log on). */
  readonly #callsInFlight: CallsInFlight | undefined;
  /** When each step of the start ended (see DaemonStartup). */
  readonly #startup: Omit<DaemonStartup, 'adopted'>;
  #resolveStopped: () => void = () => undefined;

  private constructor(options: DaemonOptions, claimed: { claim: ClaimFile; replaced: unknown[]; startedAt: number }) {
    this.#options = options;
    this.#startedBy = options.startedBy ?? 'daemon-run';
    const { paths, profile, logger } = options;
    this.#socketPath = socketPath(paths, profile.name);
    this.#claim = claimed.claim;
    this.#replaced = claimed.replaced;
    this.startedAt = claimed.startedAt;
    this.#startup = { processAt: Math.round(performance.timeOrigin), claimedAt: claimed.startedAt, browserAt: null, restoredAt: null, readyAt: null };
    this.#stopped = new Promise((resolve) => {
      this.#resolveStopped = resolve;
    });
    this.#browser = browserForProfile(paths, profile, {
      logger: logger.child('browser'),
      chrome: options.chrome,
      headless: options.headless,
      prepare: (run) => this.#prepare(run),
    });
    this.#browser.on('state', (state, lastError) => this.#onBrowserState(state, lastError));
    this.#pictures = new TabPictures({ logger: logger.child('pictures'), limits: pictureLimits(profile.config) });
    this.#dashboards = new DashboardRegistry(paths);
    this.#browser.on('lost', (reason) => {
      this.#guard = undefined;
      this.router.watchTabs(undefined);
      void this.#pictures.useRun(undefined);
      void this.router.browserLost(reason);
    });
    this.#browser.on('back', () => void this.#writeDaemonPidFile().catch((error: unknown) => logger.warn(`could not update the pid file: ${TabmuxError.from(error).message}`)));
    this.#activity = this.#createActivityLog();
    this.#journal = new SessionJournal(join(profileDataDir(paths, profile.name), 'sessions.json'), (error) => logger.warn(`session journal: ${TabmuxError.from(error).message}`));
    const inFlight = this.#activity
      ? new CallsInFlight(join(profileDataDir(paths, profile.name), 'calls-in-flight.json'), (error) => logger.warn(`calls in flight: ${TabmuxError.from(error).message}`))
      : undefined;
    this.#callsInFlight = inFlight;
    this.router = new Router({
      observe: this.#activity?.recorder.record,
      began: inFlight && ((call) => inFlight.begin({ session: call.sessionId, label: call.label, tool: call.tool, at: call.at, page: call.pageBefore })),
      profile: profile.name,
      settings: routerSettings(profile.config),
      logger: logger.child('router'),
      startUpstream: (index) => this.#startUpstream(index),
      browserReady: () => this.#browser.ready(),
      filesDir: profileFilesDir(paths, profile.name),
      urlPolicy: () => this.#policy,
      externalBrowser: this.#browser.kind === 'external',
      redactArgs: (tool, args) => redactArgs(tool, args).args,
    });
    this.router.setPolicies(profile.config.policies ?? []);
  }

  #createActivityLog(): { store: ActivityLogStore; recorder: ActivityRecorder; pictures: ActivityPictures } | undefined {
    const { paths, profile, logger } = this.#options;
    const settings = activityLogSettings(profile.config);
    if (!settings.enabled) {
      return undefined;
    }
    const log = logger.child('activity');
    const store = new ActivityLogStore({
      dir: profileActivityDir(paths, profile.name),
      maxBytes: settings.maxBytes,
      maxAgeMs: settings.maxAgeMs,
      onError: (error) => log.warn(`activity log: ${TabmuxError.from(error).message}`),
      // The person hears of it (daemon.log, status, the dashboard); agents' calls go on meanwhile.
      onHealth: (health) => {
        if (health.error === null) {
          log.info(`activity log: writing again${health.dropped > 0 ? `; ${health.dropped} entries were given up on while it failed` : ''}`);
        } else {
          log.warn(`${health.error}; ${health.pending} entries wait in memory and are written once it succeeds`);
        }
        this.#setState(this.state, this.lastError);
      },
    });
    const pictures = new ActivityPictures(store.dir, settings);
    const recorder = new ActivityRecorder({
      store,
      keepValues: settings.keepValues,
      startedAt: this.startedAt,
      stopping: () => this.#stopping !== undefined,
      emit: (entry) => this.router.publish({ type: 'activity', profile: profile.name, entry }),
      pictures: {
        store: pictures,
        capture: (tabId) => this.#pictures.still(tabId),
        onError: (error) => log.debug(`activity picture: ${TabmuxError.from(error).message}`),
      },
    });
    return { store, recorder, pictures };
  }

  /** A picture of the activity log (base64 JPEG), or null when there is none. */
  async logPicture(name: string): Promise<string | null> {
    const pictures = this.#activity?.pictures ?? new ActivityPictures(profileActivityDir(this.#options.paths, this.profile), activityLogSettings(this.#options.profile.config));
    await this.#activity?.recorder.picturesTaken();
    return (await pictures.read(name))?.toString('base64') ?? null;
  }

  /** The activity log's newest entries; still readable from its files when the profile no longer records. */
  async queryLog(filter: ActivityFilter): Promise<ActivityQueryResult> {
    if (!this.#activity) {
      return readActivityLog(profileActivityDir(this.#options.paths, this.profile), filter);
    }
    await this.#activity.recorder.flush();
    return this.#activity.store.query(filter);
  }

  get profile(): string {
    return this.#options.profile.name;
  }

  get socketPath(): string {
    return this.#socketPath;
  }

  /** Resolves once the daemon has fully stopped. */
  get stopped(): Promise<void> {
    return this.#stopped;
  }

  /**
   * Claims the profile, then starts. The claim comes first and is atomic (see ClaimFile): of any number of daemons
   * started at once for a profile, one runs and the others fail with `daemon_running` having touched nothing, not
   * the running daemon's socket, pid file or Chrome.
   */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const { paths, profile } = options;
    await ensureSecureDir(paths.runtimeDir);
    const startedAt = Date.now();
    const outcome = await ClaimFile.acquire(pidFilePath(paths, profile.name), pidRecord(paths, profile.name, null, startedAt));
    if ('holder' in outcome) {
      throw new TabmuxError(
        'daemon_running',
        `a daemon for profile ${profile.name} is already running (pid ${outcome.holder.pid}); use it, or stop it with: tabmux daemon stop --profile ${profile.name}`,
      );
    }
    let daemon: Daemon;
    try {
      daemon = new Daemon(options, { ...outcome, startedAt });
    } catch (error) {
      await outcome.claim.release();
      throw error;
    }
    try {
      await daemon.#start();
    } catch (error) {
      await daemon.stop();
      throw error;
    }
    return daemon;
  }

  async #start(): Promise<void> {
    const { paths, profile, logger } = this.#options;
    for (const dir of [profileDataDir(paths, profile.name), profileFilesDir(paths, profile.name), profileTempDir(paths, profile.name)]) {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    }
    await this.#cleanUpAfterDeadDaemons();
    // Read before anything of this daemon's is written: what the daemon that died left.
    const journaled = await readSessionJournal(this.#journal.path);
    const interrupted = this.#callsInFlight ? await readCallsInFlight(this.#callsInFlight.path) : [];
    if (this.#browser.kind === 'launched') {
      // Loading upstream is most of a worker's start, and the longest step of the daemon's: it begins first, and
      // launching Chrome, the rest of a worker's start, runs meanwhile.
      this.#preparedWorker = PreparedUpstream.start({ tempDir: this.#workerTempDir(0) }, logger.child('upstream0'));
    }
    await this.#activity?.store.start();
    await this.#logInterrupted(interrupted);
    await this.#activity?.pictures.retain().catch((error: unknown) => logger.warn(`activity pictures: ${TabmuxError.from(error).message}`));
    // Before the browser starts, so its first run is guarded against every dashboard running now or started later.
    this.#dashboardsWatch = await this.#dashboards.watch(() => void this.refreshDashboards().catch((error: unknown) => logger.warn(`dashboards: ${TabmuxError.from(error).message}`)));
    await this.refreshDashboards();
    await this.#browser.start();
    this.#startup.browserAt = Date.now();
    // Chrome's pid in the pid file only helps a successor clean up after this daemon; failing to record it is no
    // reason not to serve.
    await this.#writeDaemonPidFile().catch((error: unknown) => logger.warn(`could not update the pid file: ${TabmuxError.from(error).message}`));
    await this.router.start();
    await this.#restoreSessions(journaled);
    this.#startup.restoredAt = Date.now();
    const service = new ControlService({
      router: this.router,
      profile: profile.name,
      version: tabmuxVersion(),
      status: () => this.status(),
      stop: (options) => void this.stop(options),
      logger: logger.child('control'),
      queryLog: (filter) => this.queryLog(filter),
      logPicture: (name) => this.logPicture(name),
      connectBrowser: async () => {
        await this.#browser.ready();
        return this.#browser.info();
      },
      pictures: this.#pictures,
      refreshDashboards: () => this.refreshDashboards(),
      settled: () => this.#journal.settle(JOURNAL_SETTLE_LIMIT_MS),
      keep: () => this.keep(),
      reloadPolicies: async () => this.router.setPolicies((await new ProfileStore(paths).get(profile.name)).config.policies ?? []),
      editPolicies: async (change) => {
        const updated = await new ProfileStore(paths).update(profile.name, (config) => ({ ...config, policies: change(config.policies ?? []) }));
        return this.router.setPolicies(updated.config.policies ?? []);
      },
      clientsChanged: (count) => {
        this.#clients = count;
        this.#idle?.changed();
      },
      openingChanged: (count) => {
        this.#opening = count;
      },
    });
    this.#server = await SocketServer.listen(this.#socketPath, service, logger.child('socket'));
    this.#startIdleClock();
    this.#startup.readyAt = Date.now();
    this.#setState(FROM_BROWSER[this.#browser.state] ?? 'degraded', this.#browser.lastError);
    const browser = this.#browser.info();
    logger.info(`ready on ${this.#socketPath} (${browser.kind === 'launched' ? `Chrome pid ${String(browser.pid)}, port ${String(browser.port)}` : `external browser ${browser.endpoint}`})`);
  }

  /**
   * A daemon started on demand exits with its Chrome once it has had no session and no client for the profile's idle
   * time: nobody asked for it to stay, and nobody may remember to stop it. New clients are refused in the same turn
   * as the last look, so none is served by a daemon on its way out; they start another (connectOrStart).
   */
  #startIdleClock(): void {
    const { lifetime } = this;
    if (lifetime.idleExitMs === null) {
      return;
    }
    const afterMs = lifetime.idleExitMs;
    const { logger } = this.#options;
    this.#idle = new IdleExit({
      afterMs,
      inUse: () => this.#clients > 0 || this.router.sessionCount > 0,
      holdsOff: () => this.#opening > 0,
      exit: () => {
        this.#server?.refuseNew();
        logger.info(`no session and no client for ${formatDuration(afterMs)}; this daemon was started on demand, so it stops`);
        void this.stop();
      },
    });
    this.router.onSessionChange(() => this.#idle?.changed());
    this.#idle.changed();
  }

  /**
   * `daemon start` on a daemon started on demand: a person asked for it, so from now on it stays until it is stopped,
   * as one that `daemon start` started.
   */
  keep(): DaemonLifetime {
    if (this.#startedBy === 'demand') {
      this.#startedBy = 'daemon-start';
      this.#idle?.close();
      this.#idle = undefined;
      this.#options.logger.info('daemon start asked for this daemon: it stays until it is stopped');
    }
    return this.lifetime;
  }

  /** Who started this daemon, and whether it exits when idle (see DaemonLifetime). */
  get lifetime(): DaemonLifetime {
    const startedBy = this.#startedBy;
    const afterMs = startedBy === 'demand' ? idleExitMs(this.#options.profile.config) : 0;
    return { startedBy, idleExitMs: afterMs > 0 ? afterMs : null, idleSince: this.#idle?.idleSince ?? null };
  }

  /**
   * The calls a daemon that died left under way go into the activity log as cut off by its end (unless their entry
   * made it: the file of calls in flight is written a moment after a change), then the file is started afresh.
   */
  async #logInterrupted(calls: readonly CallInFlight[]): Promise<void> {
    const activity = this.#activity;
    const inFlight = this.#callsInFlight;
    if (!activity || !inFlight) {
      return;
    }
    if (calls.length > 0) {
      const since = Math.min(...calls.map((call) => call.at));
      const logged = await activity.store.query({ since, limit: 100_000 }).catch(() => ({ entries: [] }));
      const seen = new Set(logged.entries.map((entry) => `${entry.session} ${entry.tool} ${String(entry.at)}`));
      const cut = calls.filter((call) => !seen.has(`${call.session} ${call.tool} ${String(call.at)}`));
      for (const call of cut) {
        await activity.recorder.record({
          sessionId: call.session,
          label: call.label,
          tool: call.tool,
          args: {},
          at: call.at,
          durationMs: Math.max(0, this.startedAt - call.at),
          pageBefore: call.page,
          pageAfter: null,
          tabAfter: null,
          opened: [],
          error: new TabmuxError(
            'daemon_crashed',
            'the tabmux daemon ended (it was killed or crashed) while this call ran, so whether it took effect is unknown; the time shown runs to the next daemon\'s start, and the arguments were not kept',
          ),
        });
      }
      this.#options.logger.warn(`logged ${cut.length} call(s) the daemon that died left under way`);
    }
    await inFlight.write().catch((error: unknown) => this.#options.logger.warn(`calls in flight: ${TabmuxError.from(error).message}`));
  }

  /**
   * The sessions of the daemon that died come back when this daemon adopted its Chrome, whose tabs they own (on a
   * new Chrome their tabs are gone, and so are they). From then on the journal follows every change.
   */
  async #restoreSessions(journaled: Awaited<ReturnType<typeof readSessionJournal>>): Promise<void> {
    const { logger } = this.#options;
    if (this.#browser instanceof LaunchedBrowser && this.#browser.adopted && journaled.length > 0) {
      const restored = await this.router.restoreSessions(journaled).catch((error: unknown) => {
        logger.warn(`could not restore the sessions of the daemon that died: ${TabmuxError.from(error).message}`);
        return [];
      });
      logger.info(`restored ${restored.length} of ${journaled.length} session(s) of the daemon that died`);
    }
    const write = (): void => this.#journal.schedule(() => this.router.journal(), (written) => this.router.journalMatches(written));
    // At the change itself (a session that ended included), so the reply that tells of it waits for its write
    // (ControlService's `settled`).
    this.router.onSessionChange(write);
    write();
  }

  /**
   * Every browser run, before anyone is served on it: the tabs from the daemon's own connection, and the guard that
   * keeps every tab away from the browser's control surface and tabmux's files. A guard that cannot be installed
   * fails the run; agents are never served on an unguarded browser.
   */
  async #prepare(run: BrowserRun): Promise<void> {
    const { paths, logger } = this.#options;
    this.router.watchTabs(undefined);
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
        { refused: ({ url, reason, kind }) => guardLog.info(`refused ${kind} to ${url}: ${reason}`) },
        this.#browser.kind === 'external' ? { isAgentPage: (pageTargetId) => this.router.isAgentPage(pageTargetId), dashboardPorts, fileScope } : { dashboardPorts, fileScope },
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
    this.router.watchTabs(tabs, new BrowserContexts(run.connection, (id) => downloads?.prepareContext(id) ?? Promise.resolve()));
    // Tabs watched before a relaunch or reconnect are watched again on this run, as far as they still exist.
    void this.#pictures.useRun({ connection: run.connection, tabs });
  }

  /**
   * The files a frame's tab may read: a session's tab (or a popup of one) its own folder; in a browser the user runs,
   * a tab no session owns is the user's own; anything else, none.
   */
  async #fileScope(tabs: BrowserTabs | undefined, frameId: string): Promise<FileScope> {
    const tabId = await tabs?.tabOfFrame(frameId);
    const session = tabId === undefined ? undefined : this.router.sessionOfTab(tabId);
    if (session) {
      return { kind: 'session', folder: sessionFolder(profileFilesDir(this.#options.paths, this.profile), session.id) };
    }
    return tabId !== undefined && this.#browser.kind === 'external' ? USER_FILES : NO_FILES;
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
        browser: this.#browser.kind,
        settings: downloadSettings(profile.config),
        stagingDir: profileDownloadStagingDir(paths, profile.name),
        unownedDir: profileDownloadsDir(paths, profile.name),
        ownerOf: async (frameId) => {
          const tabId = await tabs.tabOfFrame(frameId);
          return tabId === undefined ? undefined : this.router.downloadOwner(tabId);
        },
        logger: log,
      });
    } catch (error) {
      const why = TabmuxError.from(error).message;
      if (this.#browser.kind === 'launched') {
        throw new TabmuxError('browser_unavailable', `could not set where Chrome's downloads go (${why}); nothing is served until they are. Check the daemon log and start again`, { cause: error });
      }
      log.warn(`the browser did not take tabmux's download settings (${why}); its downloads stay where it puts them`);
      return undefined;
    }
  }

  /** Where agents' downloads go, for status. */
  #downloadsInfo(): DownloadsInfo {
    const { paths, profile } = this.#options;
    const settings = downloadSettings(profile.config);
    const external = this.#browser.kind === 'external';
    return {
      mode: external ? 'cancelled' : settings.mode,
      maxBytes: settings.maxBytes,
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

  #onBrowserState(state: BrowserState, lastError: string | null): void {
    const mapped = FROM_BROWSER[state];
    if (mapped && this.state !== 'starting' && this.state !== 'stopping') {
      this.#setState(mapped, lastError);
    }
  }

  #setState(state: DaemonState, lastError: string | null): void {
    this.state = state;
    this.lastError = lastError;
    const activityLog = this.#activity?.store.health;
    this.router.publish({ type: 'daemon', profile: this.profile, state, lastError, ...(activityLog ? { activityLog } : {}) });
  }

  /** A worker (re)starts: the browser is brought up or reconnected first when it can be, else this fails fast. */
  async #startUpstream(index: number): Promise<UpstreamClient> {
    const prepared = index === 0 ? this.#preparedWorker : undefined;
    if (prepared) {
      this.#preparedWorker = undefined;
    }
    let endpoint: BrowserEndpoint;
    try {
      endpoint = await this.#browser.ensure();
    } catch (error) {
      await prepared?.close();
      throw error;
    }
    const { paths, logger } = this.#options;
    const workerLogger = logger.child(`upstream${index}`);
    const upstream = await UpstreamClient.start({ endpoint, logger: workerLogger, workspace: profileFilesDir(paths, this.profile), tempDir: this.#workerTempDir(index) }, prepared);
    if (this.#browser.kind === 'launched') {
      // Upstream connects to the browser on its first call. Make one now, answered to nobody, so that the connection
      // is made while the first agent is still on its way. (A browser the user runs is touched only when needed.)
      upstream.callTool('list_pages', {}).catch((error: unknown) => workerLogger.debug(`first connection to the browser: ${TabmuxError.from(error).message}`));
    }
    return upstream;
  }

  #workerTempDir(index: number): string {
    return `${profileTempDir(this.#options.paths, this.profile)}/worker-${index}`;
  }

  status(): DaemonStatus {
    const workers = this.router.workers();
    const browser = this.#browser.info();
    return {
      protocolVersion: PROTOCOL_VERSION,
      version: tabmuxVersion(),
      profile: this.profile,
      pid: process.pid,
      socketPath: this.#socketPath,
      startedAt: this.startedAt,
      state: this.state,
      lastError: this.lastError,
      lifetime: this.lifetime,
      browser,
      chrome:
        browser.kind === 'launched'
          ? {
              pid: browser.pid,
              port: browser.port,
              browserUrl: browser.browserUrl,
              userDataDir: browser.userDataDir,
              headless: browser.headless,
              executable: browser.executable ?? '',
            }
          : { pid: null, port: null, browserUrl: null, userDataDir: null, headless: null, executable: null },
      upstream: { pid: workers[0]?.pid ?? null },
      workers,
      sessions: this.router.listSessions(),
      startup: { ...this.#startup, adopted: this.#browser instanceof LaunchedBrowser && this.#browser.adopted },
      queue: this.router.queue(),
      settings: { ...this.router.settings },
      downloads: this.#downloadsInfo(),
      ...(this.#activity ? { activityLog: this.#activity.store.health } : {}),
    };
  }

  /**
   * Stops the daemon. `keepBrowser` (`daemon restart`) leaves a Chrome tabmux launched running with its tabs, the
   * sessions in the journal and Chrome in the pid file, for the next daemon to adopt; otherwise sessions end and
   * Chrome is closed.
   */
  stop(options: { keepBrowser?: boolean } = {}): Promise<void> {
    const browser = this.#browser instanceof LaunchedBrowser && options.keepBrowser === true ? this.#browser : undefined;
    this.#stopping ??= this.#stop(browser);
    return this.#stopping;
  }

  async #stop(kept: LaunchedBrowser | undefined): Promise<void> {
    const { logger } = this.#options;
    this.#setState('stopping', null);
    this.#idle?.close();
    logger.info(kept ? 'stopping, leaving Chrome and the sessions to the next daemon' : 'stopping');
    // The socket goes first (only the one this daemon published), so a client that comes now finds no daemon rather
    // than one that refuses it; the pid file stays until the end, so no other daemon starts on this Chrome meanwhile.
    await this.#server?.close().catch(() => undefined);
    this.#dashboardsWatch?.close();
    // Pictures asked for by the last calls are taken while the browser is still there (each within seconds).
    await this.#activity?.recorder.picturesTaken();
    await this.#pictures.close().catch(() => undefined);
    if (kept) {
      await this.#journal.seal(this.router.journal()).catch((error: unknown) => logger.warn(`could not write the session journal: ${TabmuxError.from(error).message}`));
    }
    await this.router.close().catch(() => undefined);
    // Every call ended above and was logged (cancelled, when the stop cut it off): none is left under way.
    await this.#callsInFlight?.clear().catch((error: unknown) => logger.warn(`could not remove the calls in flight: ${TabmuxError.from(error).message}`));
    if (!kept) {
      // Stopping ends the sessions: no later daemon brings them back.
      await this.#journal.clear().catch((error: unknown) => logger.warn(`could not remove the session journal: ${TabmuxError.from(error).message}`));
    }
    await this.#preparedWorker?.close();
    await this.#activity?.recorder.flush().catch(() => undefined);
    await this.#activity?.store.close().catch(() => undefined);
    await (kept ? kept.detach() : this.#browser.close()).catch(() => undefined);
    // Left in place when Chrome is: it tells the next daemon which Chrome to adopt, and reads as a dead daemon's claim
    // once this process has exited.
    await (kept ? Promise.resolve() : this.#claim.release()).catch((error: unknown) => logger.warn(`could not remove the pid file: ${TabmuxError.from(error).message}`));
    logger.info('stopped');
    this.#resolveStopped();
  }

  /**
   * A daemon that died (SIGKILL, a crash) left its Chrome, which its watchdog keeps running for the grace period, and
   * its socket, which refuses every client. This daemon adopts that Chrome, tabs and all, when it checks out as this
   * profile's (findOrphanChrome); any other leftover Chrome, which would hold the user-data-dir, is stopped. The
   * socket goes before this daemon publishes its own.
   */
  async #cleanUpAfterDeadDaemons(): Promise<void> {
    const { logger } = this.#options;
    // The socket first: until it goes, clients find one that refuses them and wait, rather than a missing one.
    await clearStaleSocket(this.#socketPath);
    const browser = this.#browser instanceof LaunchedBrowser ? this.#browser : undefined;
    let adopted = false;
    for (const record of this.#replaced) {
      const previous = daemonPidFileSchema.safeParse(record);
      logger.warn(`took the profile over from a daemon that is gone${previous.success ? ` (pid ${previous.data.pid})` : ''}`);
      if (!previous.success || previous.data.chromePid === null) {
        continue;
      }
      const { chromePid, userDataDir, chromePort, watchdogPid } = previous.data;
      const orphan = browser && !adopted ? await findOrphanChrome({ chromePid, userDataDir, chromePort: chromePort ?? undefined, watchdogPid }, profileUserDataDir(this.#options.paths, this.profile), logger) : undefined;
      if (browser && orphan) {
        logger.info(`adopting Chrome pid ${orphan.pid} (port ${orphan.port}) from the daemon that is gone`);
        browser.adopt(orphan);
        adopted = true;
      } else {
        await stopLeftoverChrome(chromePid, userDataDir, logger);
      }
    }
    const ownDir = profileUserDataDir(this.#options.paths, this.profile);
    const unrecorded = browser && !adopted && this.#replaced.length > 0 ? await lockingChrome(ownDir) : undefined;
    if (unrecorded !== undefined) {
      await stopLeftoverChrome(unrecorded, ownDir, logger);
    }
  }

  async #writeDaemonPidFile(): Promise<void> {
    const { paths, profile } = this.#options;
    // Only a Chrome tabmux launched is ever recorded, so a later daemon never adopts or stops a browser it does not own.
    const chrome = this.#browser instanceof LaunchedBrowser ? this.#browser.record() : { chromePid: null, chromePort: null, watchdogPid: null };
    await this.#claim.update({ ...pidRecord(paths, profile.name, chrome.chromePid, this.startedAt), chromePort: chrome.chromePort, watchdogPid: chrome.watchdogPid });
  }
}

/** The pid file's record, less what the claim adds (pid, process identity, claim id); see DaemonPidFile.ts. */
function pidRecord(paths: TabmuxPaths, profile: string, chromePid: number | null, startedAt: number): Record<string, unknown> {
  return { chromePid, userDataDir: profileUserDataDir(paths, profile), startedAt };
}
