import { promises as fs } from 'node:fs';
import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonLifetime, DaemonMemory, DaemonStartedBy, DaemonStartup, DaemonState, DaemonStatus } from '../../../shared/model.js';
import { PROTOCOL_VERSION } from '../../../shared/protocol.js';
import { RESTART_DRAIN_MS } from '../../../shared/protocolConstants.js';
// Loaded before the daemon's other parts: the order its modules first allocate native memory in leaves the daemon
// ~1 MiB smaller once it settles (see the memory rows of bench/RESULTS.md).
import { BrowserRuns } from './BrowserRuns.js';
import { browserForProfile } from '../browser/browserForProfile.js';
import type { BrowserState, ProfileBrowser } from '../browser/ProfileBrowser.js';
import { LaunchedBrowser } from '../browser/LaunchedBrowser.js';
import { ProfileStore } from '../profile/ProfileStore.js';
import { redactArgs } from '../activity/redactArgs.js';
import { ControlService } from './ControlService.js';
import { pictureLimits } from '../pictures/PictureLimits.js';
import { TabPictures } from '../pictures/TabPictures.js';
import type { Logger } from '../platform/Logger.js';
import {
  profileDataDir,
  profileFilesDir,
  profileTempDir,
  profileUserDataDir,
  socketPath,
  type TabmuxPaths,
} from '../platform/paths.js';
import { DaemonPidClaim } from './DaemonPidClaim.js';
import type { ProfileEntry } from '../profile/ProfileStore.js';
import { Router } from '../router/Router.js';
import { SessionHandover } from './SessionHandover.js';
import { ensureSecureDir } from '../platform/secureFs.js';
import { routerSettings } from './daemonSettings.js';
import { DaemonLifetimeClock } from './DaemonLifetimeClock.js';
import type { ActivityFilter } from '../activity/readActivityLog.js';
import { DaemonActivity } from './DaemonActivity.js';
import { cleanUpAfterDeadDaemons } from './deadDaemons.js';
import type { ActivityQueryResult } from '../../../shared/activity.js';
import { SocketServer } from '../transport/SocketServer.js';
import { UpstreamStarter } from './UpstreamStarter.js';
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
  readonly #claim: DaemonPidClaim;
  readonly #browser: ProfileBrowser;
  /** Each browser run's guard, URL policy, tabs and downloads, prepared before anyone is served on it. */
  readonly #runs: BrowserRuns;
  #server: SocketServer | undefined;
  /** Who started the daemon, and for one started on demand, the idle clock that stops it. */
  readonly #lifetime: DaemonLifetimeClock;
  /** Live pictures of tabs, for whoever watches; they follow the browser from run to run. */
  readonly #pictures: TabPictures;
  /** The activity log, and the calls under way for a daemon started after this one died to log as cut off. */
  readonly #activity: DaemonActivity;
  #stopping: Promise<void> | undefined;
  /** Starts the upstream workers against the browser, the first one loading while a launched Chrome starts. */
  readonly #upstreams: UpstreamStarter;
  readonly #stopped: Promise<void>;
  /** The sessions as they change, for a daemon that adopts this one's Chrome should this one die. */
  readonly #handover: SessionHandover;
  /** When each step of the start ended (see DaemonStartup). */
  readonly #startup: Omit<DaemonStartup, 'adopted'>;
  #resolveStopped: () => void = () => undefined;

  private constructor(options: DaemonOptions, claim: DaemonPidClaim, startedAt: number) {
    this.#options = options;
    const { paths, profile, logger } = options;
    this.#socketPath = socketPath(paths, profile.name);
    this.#claim = claim;
    this.startedAt = startedAt;
    this.#startup = { processAt: Math.round(Date.now() - process.uptime() * 1000), claimedAt: startedAt, browserAt: null, restoredAt: null, readyAt: null };
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
    this.#upstreams = new UpstreamStarter({ paths, profile: profile.name, logger, browser: this.#browser });
    this.#pictures = new TabPictures({ logger: logger.child('pictures'), limits: pictureLimits(profile.config) });
    this.#browser.on('lost', (reason) => {
      this.#runs.lost();
      this.router.watchTabs(undefined);
      void this.#pictures.useRun(undefined);
      void this.router.browserLost(reason);
    });
    this.#browser.on('back', () => void this.#claim.record(this.#browser).catch((error: unknown) => logger.warn(`could not update the pid file: ${TabmuxError.from(error).message}`)));
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
    this.router = new Router({
      observe: this.#activity.observe,
      began: this.#activity.began,
      profile: profile.name,
      settings: routerSettings(profile.config),
      logger: logger.child('router'),
      startUpstream: (index) => this.#upstreams.start(index),
      browserReady: () => this.#browser.ready(),
      filesDir: profileFilesDir(paths, profile.name),
      urlPolicy: () => this.#runs.policy,
      externalBrowser: this.#browser.kind === 'external',
      redactArgs: (tool, args) => redactArgs(tool, args).args,
      browserSilence: () => this.#setState(this.state, this.lastError),
    });
    this.router.setPolicies(profile.config.policies ?? []);
    this.#runs = new BrowserRuns({ paths, profile, logger, browserKind: this.#browser.kind, router: this.router, pictures: this.#pictures });
    this.#handover = new SessionHandover({ paths, profile: profile.name, logger, router: this.router });
    this.#lifetime = new DaemonLifetimeClock({
      profile,
      logger,
      startedBy: options.startedBy ?? 'daemon-run',
      router: this.router,
      refuseNew: () => this.#server?.refuseNew(),
      stop: () => void this.stop(),
    });
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
    const claim = await DaemonPidClaim.acquire(paths, profile.name, startedAt);
    let daemon: Daemon;
    try {
      daemon = new Daemon(options, claim, startedAt);
    } catch (error) {
      await claim.release();
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
      replaced: this.#claim.replaced,
      browser: this.#browser instanceof LaunchedBrowser ? this.#browser : undefined,
      userDataDir: profileUserDataDir(paths, profile.name),
      logger,
    });
    // Read before anything of this daemon's is written: what the daemon that died left.
    const journaled = await this.#handover.read();
    const interrupted = await this.#activity.leftUnderWay();
    if (this.#browser.kind === 'launched') {
      // Loading upstream is most of a worker's start, and the longest step of the daemon's: it begins first, and
      // launching Chrome, the rest of a worker's start, runs meanwhile.
      this.#upstreams.prepareFirst();
    }
    await this.#activity.open(interrupted);
    // Before the browser starts, so its first run is guarded against every dashboard running now or started later.
    await this.#runs.watchDashboards();
    await this.#browser.start();
    this.#startup.browserAt = Date.now();
    // Chrome's pid in the pid file only helps a successor clean up after this daemon; failing to record it is no
    // reason not to serve.
    await this.#claim.record(this.#browser).catch((error: unknown) => logger.warn(`could not update the pid file: ${TabmuxError.from(error).message}`));
    await this.router.start();
    await this.#handover.restore(journaled, this.#browser instanceof LaunchedBrowser && this.#browser.adopted);
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
      settled: () => this.#handover.settled(),
      keep: () => this.keep(),
      reloadPolicies: async () => this.router.setPolicies((await new ProfileStore(paths).get(profile.name)).config.policies ?? []),
      editPolicies: async (change) => {
        const updated = await new ProfileStore(paths).update(profile.name, (config) => ({ ...config, policies: change(config.policies ?? []) }));
        return this.router.setPolicies(updated.config.policies ?? []);
      },
      clientsChanged: (count) => this.#lifetime.clientsChanged(count),
      openingChanged: (count) => this.#lifetime.openingChanged(count),
    });
    this.#server = await SocketServer.listen(this.#socketPath, service, logger.child('socket'));
    this.#lifetime.start();
    this.#startup.readyAt = Date.now();
    this.#setState(FROM_BROWSER[this.#browser.state] ?? 'degraded', this.#browser.lastError);
    const browser = this.#browser.info();
    logger.info(`ready on ${this.#socketPath} (${browser.kind === 'launched' ? `Chrome pid ${String(browser.pid)}, port ${String(browser.port)}` : `external browser ${browser.endpoint}`})`);
  }

  /**
   * `daemon start` on a daemon started on demand: a person asked for it, so from now on it stays until it is stopped,
   * as one that `daemon start` started.
   */
  keep(): DaemonLifetime {
    return this.#lifetime.keep();
  }

  /** Who started this daemon, and whether it exits when idle (see DaemonLifetime). */
  get lifetime(): DaemonLifetime {
    return this.#lifetime.lifetime;
  }

  #onBrowserState(state: BrowserState, lastError: string | null): void {
    const mapped = FROM_BROWSER[state];
    if (mapped && this.state !== 'starting' && this.state !== 'stopping') {
      this.#setState(mapped, lastError);
    }
  }

  #setState(state: DaemonState, lastError: string | null, restarting = false): void {
    this.state = state;
    this.lastError = lastError;
    const activityLog = this.#activity.health;
    // Subscribers that stay for the next daemon (`log --follow`) tell a restart from a stop by it.
    const browserSilentSince = this.router.pulse.silentSince;
    this.router.publish({ type: 'daemon', profile: this.profile, state, lastError, browserSilentSince, ...(activityLog ? { activityLog } : {}), ...(restarting ? { restarting } : {}) });
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
      browserSilentSince: this.router.pulse.silentSince,
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
    this.#stopping ??= this.#stop(browser, options.keepBrowser === true);
    return this.#stopping;
  }

  async #stop(kept: LaunchedBrowser | undefined, restarting: boolean): Promise<void> {
    const { logger } = this.#options;
    this.#setState('stopping', null, restarting);
    this.#lifetime.close();
    logger.info(kept ? 'stopping, leaving Chrome and the sessions to the next daemon' : 'stopping');
    if (restarting) {
      // The agents stay, so the calls under way are let finish and answered (the next daemon could not tell them
      // whether those had run); calls not started yet, and questions and held calls no person answered yet, are told
      // they did not run, and the MCP bridge and the CLI send them to the next daemon.
      this.router.stopTakingCalls(new TabmuxError('daemon_restarting', 'the daemon is restarting, and this call did not run; call it again: the daemon is back in a few seconds'));
      if ((await this.#server?.drain(RESTART_DRAIN_MS)) === false) {
        logger.warn(`calls still under way after ${RESTART_DRAIN_MS / 1000} s are cut off by the restart`);
      }
    }
    // The socket goes first (only the one this daemon published), so a client that comes now finds no daemon rather
    // than one that refuses it; the pid file stays until the end, so no other daemon starts on this Chrome meanwhile.
    await this.#server?.close().catch(() => undefined);
    this.#runs.close();
    // Pictures asked for by the last calls are taken while the browser is still there (each within seconds).
    await this.#activity.picturesTaken();
    await this.#pictures.close().catch(() => undefined);
    if (kept) {
      await this.#handover.handOver();
    }
    await this.router.close().catch(() => undefined);
    // Every call ended above and was logged (cancelled, when the stop cut it off): none is left under way.
    await this.#activity.close();
    if (!kept) {
      // Stopping ends the sessions: no later daemon brings them back.
      await this.#handover.clear();
    }
    await this.#upstreams.close();
    await (kept ? kept.detach() : this.#browser.close()).catch(() => undefined);
    // Left in place when Chrome is: it tells the next daemon which Chrome to adopt, and reads as a dead daemon's claim
    // once this process has exited.
    await (kept ? Promise.resolve() : this.#claim.release()).catch((error: unknown) => logger.warn(`could not remove the pid file: ${TabmuxError.from(error).message}`));
    logger.info('stopped');
    this.#resolveStopped();
  }
}

/** This process's memory (see DaemonMemory). */
function processMemory(): DaemonMemory {
  const usage = process.memoryUsage();
  // Node's v8 module (and what it loads) comes into the daemon only once its memory is asked for.
  const young = process.getBuiltinModule('node:v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed, youngGenerationBytes: young?.space_size ?? 0, externalBytes: usage.external };
}
