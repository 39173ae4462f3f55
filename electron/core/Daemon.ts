import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { TabmuxError } from '../../shared/errors.js';
import type { DaemonState, DaemonStatus } from '../../shared/model.js';
import { PROTOCOL_VERSION } from '../../shared/protocol.js';
import { ChromeProcess } from './ChromeProcess.js';
import { ControlService } from './ControlService.js';
import { findChrome } from './findChrome.js';
import type { Logger } from './Logger.js';
import { pidFilePath, profileDataDir, profileFilesDir, profileUserDataDir, socketPath, type TabmuxPaths } from './paths.js';
import type { ProfileEntry } from './ProfileStore.js';
import { isProcessAlive, killProcessGroup } from './processes.js';
import { Router } from './router/Router.js';
import { ensureSecureDir, readFileNoFollow, removeIfExists, writeFileNoFollow } from './secureFs.js';
import { chromeExtraArgs, resolveHeadless, routerSettings } from './settings.js';
import { SocketServer } from './transport/SocketServer.js';
import { UpstreamClient } from './UpstreamClient.js';
import { tabmuxVersion } from './version.js';

export interface DaemonOptions {
  paths: TabmuxPaths;
  profile: ProfileEntry;
  logger: Logger;
  chrome?: string | undefined;
  headless?: boolean | undefined;
}

const pidFileSchema = z.object({ pid: z.number().int(), chromePid: z.number().int().nullable(), userDataDir: z.string(), startedAt: z.number() });
type PidFile = z.infer<typeof pidFileSchema>;

/**
 * One profile's daemon: its Chrome, its upstream worker(s), the router, and the socket that agents and UIs reach it
 * through. It outlives its clients; `stop()` tears everything down in reverse order of creation.
 */
export class Daemon {
  state: DaemonState = 'starting';
  lastError: string | null = null;
  readonly startedAt = Date.now();
  readonly router: Router;
  readonly #options: DaemonOptions;
  readonly #socketPath: string;
  readonly #pidFile: string;
  readonly #userDataDir: string;
  readonly #headless: boolean;
  readonly #executable: string;
  #chrome: ChromeProcess | undefined;
  #server: SocketServer | undefined;
  #stopping: Promise<void> | undefined;
  #crashes: number[] = [];
  readonly #stopped: Promise<void>;
  #resolveStopped: () => void = () => undefined;

  private constructor(options: DaemonOptions) {
    this.#options = options;
    const { paths, profile } = options;
    this.#socketPath = socketPath(paths, profile.name);
    this.#pidFile = pidFilePath(paths, profile.name);
    this.#userDataDir = profileUserDataDir(paths, profile.name);
    this.#headless = resolveHeadless(options.headless, profile.config);
    this.#executable = findChrome(options.chrome ?? profile.config.chrome);
    this.#stopped = new Promise((resolve) => {
      this.#resolveStopped = resolve;
    });
    this.router = new Router({
      profile: profile.name,
      settings: routerSettings(profile.config),
      logger: options.logger.child('router'),
      startUpstream: (index) => this.#startUpstream(index),
      filesDir: profileFilesDir(paths, profile.name),
    });
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

  static async start(options: DaemonOptions): Promise<Daemon> {
    const daemon = new Daemon(options);
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
    await ensureSecureDir(paths.runtimeDir);
    await fs.mkdir(profileDataDir(paths, profile.name), { recursive: true, mode: 0o700 });
    await fs.mkdir(profileFilesDir(paths, profile.name), { recursive: true, mode: 0o700 });
    await this.#claimPidFile();
    await this.#launchChrome();
    await this.router.start();
    const service = new ControlService({
      router: this.router,
      profile: profile.name,
      version: tabmuxVersion(),
      status: () => this.status(),
      stop: () => void this.stop(),
      logger: logger.child('control'),
    });
    this.#server = await SocketServer.listen(this.#socketPath, service, logger.child('socket'));
    this.#setState('ready', null);
    logger.info(`ready on ${this.#socketPath} (Chrome pid ${String(this.#chrome?.pid)}, port ${String(this.#chrome?.port)})`);
  }

  async #launchChrome(): Promise<void> {
    const { profile, logger } = this.#options;
    const chrome = await ChromeProcess.launch({
      executable: this.#executable,
      userDataDir: this.#userDataDir,
      headless: this.#headless,
      extraArgs: chromeExtraArgs(profile.config),
      logger: logger.child('chrome'),
    });
    this.#chrome = chrome;
    await this.#writePidFile();
    void chrome.exited.then((exit) => this.#onChromeExit(chrome, exit.signal ?? `code ${String(exit.code)}`));
  }

  /**
   * Chrome died under us: tell the router (running calls fail at once, sessions learn their pages are lost), then
   * relaunch on the same user-data-dir with backoff. Repeated crashes show as `crashed` with the last error and are
   * retried at the longest backoff, never in a busy loop.
   */
  async #onChromeExit(chrome: ChromeProcess, how: string): Promise<void> {
    if (this.#stopping !== undefined || chrome !== this.#chrome) {
      return;
    }
    const { logger } = this.#options;
    const now = Date.now();
    this.#crashes = [...this.#crashes.filter((at) => now - at < 120_000), now];
    this.#setState('degraded', `Chrome exited unexpectedly (${how})`);
    logger.error(this.lastError ?? 'Chrome exited');
    await this.router.browserLost(`Chrome exited: ${how}`);
    for (let attempt = this.#crashes.length - 1; this.#stopping === undefined; attempt++) {
      const delay = Math.min(30_000, 500 * 2 ** attempt);
      if (attempt >= 3) {
        this.#setState('crashed', `${this.lastError ?? 'Chrome keeps exiting'}; retrying every ${Math.round(delay / 1000)} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.#stopping !== undefined) {
        return;
      }
      try {
        await this.#launchChrome();
        logger.info(`Chrome relaunched (pid ${this.#chrome?.pid ?? -1})`);
        this.#setState('ready', null);
        return;
      } catch (error) {
        this.lastError = `Chrome relaunch failed: ${TabmuxError.from(error).message}`;
        logger.error(this.lastError);
      }
    }
  }

  #setState(state: DaemonState, lastError: string | null): void {
    this.state = state;
    this.lastError = lastError;
    this.router.publish({ type: 'daemon', profile: this.profile, state, lastError });
  }

  #startUpstream(index: number): Promise<UpstreamClient> {
    const chrome = this.#chrome;
    if (!chrome?.running || this.state === 'degraded' || this.state === 'crashed') {
      const why = this.lastError ? `: ${this.lastError}` : '';
      return Promise.reject(new TabmuxError('upstream_unavailable', `Chrome is not running${why}; it is being relaunched, retry shortly`));
    }
    return UpstreamClient.start({
      browserUrl: chrome.browserUrl,
      logger: this.#options.logger.child(`upstream${index}`),
      workspace: profileFilesDir(this.#options.paths, this.profile),
    });
  }

  status(): DaemonStatus {
    const workers = this.router.workers();
    const chrome = this.#chrome;
    return {
      protocolVersion: PROTOCOL_VERSION,
      version: tabmuxVersion(),
      profile: this.profile,
      pid: process.pid,
      socketPath: this.#socketPath,
      startedAt: this.startedAt,
      state: this.state,
      lastError: this.lastError,
      chrome: {
        pid: chrome?.running ? chrome.pid : null,
        port: chrome?.port ?? null,
        browserUrl: chrome?.browserUrl ?? null,
        userDataDir: this.#userDataDir,
        headless: this.#headless,
        executable: this.#executable,
      },
      upstream: { pid: workers[0]?.pid ?? null },
      workers,
      sessions: this.router.listSessions(),
      queue: this.router.queue(),
      settings: { ...this.router.settings },
    };
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    const { logger } = this.#options;
    this.#setState('stopping', null);
    logger.info('stopping');
    await this.#server?.close().catch(() => undefined);
    await this.router.close().catch(() => undefined);
    await this.#chrome?.stop().catch(() => undefined);
    await removeIfExists(this.#socketPath).catch(() => undefined);
    const owner = await this.#readPidFile();
    if (owner?.pid === process.pid) {
      await removeIfExists(this.#pidFile).catch(() => undefined);
    }
    logger.info('stopped');
    this.#resolveStopped();
  }

  /**
   * Takes the profile's pid file. A live daemon holding it is an error; a dead one's leftovers (its Chrome, its
   * socket) are cleaned up first, so a daemon killed with SIGKILL does not leave Chrome running forever.
   */
  async #claimPidFile(): Promise<void> {
    const previous = await this.#readPidFile();
    if (previous && previous.pid !== process.pid && isProcessAlive(previous.pid)) {
      throw new TabmuxError('daemon_running', `a daemon for profile ${this.profile} is already running (pid ${previous.pid}); stop it with: tabmux daemon stop --profile ${this.profile}`);
    }
    if (previous?.chromePid && isProcessAlive(previous.chromePid) && (await isChromeFor(previous.chromePid, previous.userDataDir))) {
      this.#options.logger.warn(`stopping Chrome pid ${previous.chromePid} left behind by a daemon that died`);
      killProcessGroup(previous.chromePid, 'SIGKILL');
      await waitGone(previous.chromePid);
    }
    await removeIfExists(this.#socketPath);
    await this.#writePidFile();
  }

  async #writePidFile(): Promise<void> {
    const record: PidFile = { pid: process.pid, chromePid: this.#chrome?.pid ?? null, userDataDir: this.#userDataDir, startedAt: this.startedAt };
    await writeFileNoFollow(this.#pidFile, `${JSON.stringify(record)}\n`);
  }

  async #readPidFile(): Promise<PidFile | undefined> {
    const text = await readFileNoFollow(this.#pidFile).catch(() => undefined);
    if (!text) {
      return undefined;
    }
    try {
      const parsed = pidFileSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Only a process whose command line names this user-data-dir is treated as our leftover Chrome. */
async function isChromeFor(pid: number, userDataDir: string): Promise<boolean> {
  try {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(`--user-data-dir=${userDataDir}`);
  } catch {
    return false;
  }
}

async function waitGone(pid: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
