import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonLifetime, DaemonMemory, DaemonStartedBy, DaemonStartup, DaemonState, DaemonStatus } from '../../../shared/model.js';
import { PROTOCOL_VERSION } from '../../../shared/protocol.js';
// Loaded before the daemon's other parts: the order its modules first allocate native memory in leaves the daemon
// ~1 MiB smaller once it settles (see the memory rows of bench/RESULTS.md).
import { BrowserRuns } from './BrowserRuns.js';
import { browserForProfile } from '../browser/browserForProfile.js';
import type { BrowserEndpoint, BrowserState, ProfileBrowser } from '../browser/ProfileBrowser.js';
import { LaunchedBrowser } from '../browser/LaunchedBrowser.js';
import { ProfileStore } from '../profile/ProfileStore.js';
import { redactArgs } from '../activity/redactArgs.js';
import { ControlService } from './ControlService.js';
import { pictureLimits } from '../pictures/PictureLimits.js';
import { TabPictures } from '../pictures/TabPictures.js';
import type { Logger } from '../platform/Logger.js';
import {
  pidFilePath,
  profileDataDir,
  profileFilesDir,
  profileTempDir,
  profileUserDataDir,
  socketPath,
  type TabmuxPaths,
} from '../platform/paths.js';
import { ClaimFile } from '../process/ClaimFile.js';
import type { ProfileEntry } from '../profile/ProfileStore.js';
import { Router } from '../router/Router.js';
import { readSessionJournal, SessionJournal } from '../router/SessionJournal.js';
import { ensureSecureDir } from '../platform/secureFs.js';
import { routerSettings } from './daemonSettings.js';
import { idleExitMs } from '../profile/settings.js';
import { IdleExit } from '../process/IdleExit.js';
import { formatDuration } from '../../../shared/daemonLifetime.js';
import type { ActivityFilter } from '../activity/readActivityLog.js';
import { DaemonActivity } from './DaemonActivity.js';
import { cleanUpAfterDeadDaemons } from './deadDaemons.js';
import type { ActivityQueryResult } from '../../../shared/activity.js';
import { SocketServer } from '../transport/SocketServer.js';
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

/** How long a reply waits at most for the session journal's write (a local file; a disk that hangs holds no reply longer). */
const JOURNAL_SETTLE_LIMIT_MS = 1000;

/** The browser's state as the daemon's, once the daemon is up. */
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
  /** Each browser run's guard, URL policy, tabs and downloads, prepared before anyone is served on it. */
  readonly #runs: BrowserRuns;
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
  /** The activity log, and the calls under way for a daemon started after this one died to log as cut off. */
  readonly #activity: DaemonActivity;
  #stopping: Promise<void> | undefined;
  /** The first worker, started while a launched Chrome starts, until the router takes it. */
  #preparedWorker: PreparedUpstream | undefined;
  readonly #stopped: Promise<void>;
  /** The sessions as they change, for a daemon that adopts this one's Chrome should this one die (see SessionJournal). */
  readonly #journal: SessionJournal;
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
    this.#startup = { processAt: Math.round(Date.now() - process.uptime() * 1000), claimedAt: claimed.startedAt, browserAt: null, restoredAt: null, readyAt: null };
    this.#stopped = new Promise((resolve) => {
      this.#resolveStopped = resolve;
    });
    this.#browser = browserForProfile(paths, profile, {
      logger: logger.child('browser'),
      chrome: options.chrome,
      headless: options.headless,
      prepare: (run) => this.#runs.prepare(run),
    });
    this.#browser.on('state', (state, lastError) => this.#onBrowserState(state, lastError));
    this.#pictures = new TabPictures({ logger: logger.child('pictures'), limits: pictureLimits(profile.config) });
    this.#browser.on('lost', (reason) => {
      this.#runs.lost();
      this.router.watchTabs(undefined);
      void this.#pictures.useRun(undefined);
      void this.router.browserLost(reason);
    });
    this.#browser.on('back', () => void this.#writeDaemonPidFile().catch((error: unknown) => logger.warn(`could not update the pid file: ${TabmuxError.from(error).message}`)));
    this.#activity = new DaemonActivity({
      paths,
      profile,
      logger,
      startedAt: this.startedAt,
      stopping: () => this.#stopping !== undefined,
      publish: (entry) => this.router.publish({ type: 'activity', profile: profile.name, entry }),
      capture: (tabId) => this.#pictures.still(tabId),
      healthChanged: () => this.#setState(this.state, this.lastError),
    });
    this.#journal = new SessionJournal(join(profileDataDir(paths, profile.name), 'sessions.json'), (error) => logger.warn(`session journal: ${TabmuxError.from(error).message}`));
    this.router = new Router({
      observe: this.#activity.observe,
      began: this.#activity.began,
      profile: profile.name,
      settings: routerSettings(profile.config),
      logger: logger.child('router'),
      startUpstream: (index) => this.#startUpstream(index),
      browserReady: () => this.#browser.ready(),
      filesDir: profileFilesDir(paths, profile.name),
      urlPolicy: () => this.#runs.policy,
      externalBrowser: this.#browser.kind === 'external',
      redactArgs: (tool, args) => redactArgs(tool, args).args,
    });
    this.router.setPolicies(profile.config.policies ?? []);
    this.#runs = new BrowserRuns({ paths, profile, logger, browserKind: this.#browser.kind, router: this.router, pictures: this.#pictures });
  }

  /** A picture of the activity log (base64 JPEG), or null when there is none. */
  logPicture(name: string): Promise<string | null> {
    return this.#activity.picture(name);
  }

  /** The activity log's newest entries; still readable from its files when the profile no longer records. */
  queryLog(filter: ActivityFilter): Promise<ActivityQueryResult> {
    return this.#activity.query(filter);
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
    await cleanUpAfterDeadDaemons({
      socketPath: this.#socketPath,
      replaced: this.#replaced,
      browser: this.#browser instanceof LaunchedBrowser ? this.#browser : undefined,
      userDataDir: profileUserDataDir(paths, profile.name),
      logger,
    });
    // Read before anything of this daemon's is written: what the daemon that died left.
    const journaled = await readSessionJournal(this.#journal.path);
    const interrupted = await this.#activity.leftUnderWay();
    if (this.#browser.kind === 'launched') {
      // Loading upstream is most of a worker's start, and the longest step of the daemon's: it begins first, and
      // launching Chrome, the rest of a worker's start, runs meanwhile.
      this.#preparedWorker = PreparedUpstream.start({ tempDir: this.#workerTempDir(0) }, logger.child('upstream0'));
    }
    await this.#activity.open(interrupted);
    // Before the browser starts, so its first run is guarded against every dashboard running now or started later.
    await this.#runs.watchDashboards();
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
      refreshDashboards: () => this.#runs.refreshDashboards(),
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

  #onBrowserState(state: BrowserState, lastError: string | null): void {
    const mapped = FROM_BROWSER[state];
    if (mapped && this.state !== 'starting' && this.state !== 'stopping') {
      this.#setState(mapped, lastError);
    }
  }

  #setState(state: DaemonState, lastError: string | null): void {
    this.state = state;
    this.lastError = lastError;
    const activityLog = this.#activity.health;
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
      downloads: this.#runs.downloadsInfo(),
      ...(this.#activity.health ? { activityLog: this.#activity.health } : {}),
      memory: processMemory(),
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
    this.#runs.close();
    // Pictures asked for by the last calls are taken while the browser is still there (each within seconds).
    await this.#activity.picturesTaken();
    await this.#pictures.close().catch(() => undefined);
    if (kept) {
      await this.#journal.seal(this.router.journal()).catch((error: unknown) => logger.warn(`could not write the session journal: ${TabmuxError.from(error).message}`));
    }
    await this.router.close().catch(() => undefined);
    // Every call ended above and was logged (cancelled, when the stop cut it off): none is left under way.
    await this.#activity.close();
    if (!kept) {
      // Stopping ends the sessions: no later daemon brings them back.
      await this.#journal.clear().catch((error: unknown) => logger.warn(`could not remove the session journal: ${TabmuxError.from(error).message}`));
    }
    await this.#preparedWorker?.close();
    await (kept ? kept.detach() : this.#browser.close()).catch(() => undefined);
    // Left in place when Chrome is: it tells the next daemon which Chrome to adopt, and reads as a dead daemon's claim
    // once this process has exited.
    await (kept ? Promise.resolve() : this.#claim.release()).catch((error: unknown) => logger.warn(`could not remove the pid file: ${TabmuxError.from(error).message}`));
    logger.info('stopped');
    this.#resolveStopped();
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

/** This process's memory (see DaemonMemory). */
function processMemory(): DaemonMemory {
  const usage = process.memoryUsage();
  // Node's v8 module (and what it loads) comes into the daemon only once its memory is asked for.
  const young = process.getBuiltinModule('node:v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed, youngGenerationBytes: young?.space_size ?? 0, externalBytes: usage.external };
}
