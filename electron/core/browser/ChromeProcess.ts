import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import { withDeadline } from '../../../shared/withDeadline.js';
import type { Logger } from '../platform/Logger.js';
import type { CdpConnection } from './CdpConnection.js';
import { startWatchdog } from './ChromeWatchdog.js';
import { chromeHolding, removeSingletonFolder } from '../process/chromeHolding.js';
import { isProcessAlive, killProcessGroup } from '../process/processes.js';

export interface ChromeLaunchOptions {
  executable: string;
  userDataDir: string;
  headless: boolean;
  extraArgs: readonly string[];
  logger: Logger;
  startTimeoutMs?: number;
  /** Called once Chrome's process is spawned, while it starts: work that can overlap its start goes here. */
  onSpawned?: () => void;
  /** How long Chrome outlives a daemon that died before its watchdog closes it (see startWatchdog); 0 by default. */
  orphanGraceMs?: number;
}

/** A running Chrome a daemon that died left behind, already checked to be this profile's (see findOrphanChrome). */
export interface OrphanChrome {
  pid: number;
  userDataDir: string;
  port: number;
  /** The browser target's WebSocket path (`/devtools/browser/<id>`). */
  path: string;
}

export interface ChromeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Flags that keep Chrome quiet and predictable for automation without changing what a logged-in user sees. */
const BASE_ARGS = [
  '--remote-debugging-port=0',
  '--remote-debugging-address=127.0.0.1',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-features=Translate,MediaRouter',
];

/** How long a closing Chrome may take to write its profile and exit before what is left is killed. */
export const CLOSE_GRACE_MS = 10_000;
/** How long Chrome may take to answer `Browser.close` before it is asked again by SIGTERM. */
const CLOSE_ANSWER_MS = 3000;
/** How often an adopted Chrome (not this process's child, so no exit event) is checked for having exited. */
const ADOPTED_EXIT_POLL_MS = 250;

/**
 * One Chrome launched on a profile's own user-data-dir with a DevTools port on loopback. Chrome runs in its own
 * process group so stopping it takes its helpers (renderers, GPU, zygote) along.
 */
export class ChromeProcess {
  readonly pid: number;
  readonly port: number;
  readonly browserUrl: string;
  /** The browser target's WebSocket endpoint (what the daemon's own CDP connection opens). */
  readonly webSocketUrl: string;
  readonly exited: Promise<ChromeExit>;
  /** The shell that closes this Chrome once its daemon is gone for the grace period; undefined on Windows. */
  readonly watchdogPid: number | undefined;
  /** Whether this Chrome was left by a daemon that died and taken over by this one. */
  readonly adopted: boolean;
  #exit: ChromeExit | undefined;
  readonly #tidied: Promise<void>;
  readonly #release: () => void;

  private constructor(pid: number, active: ActivePort, exited: Promise<ChromeExit>, tidied: Promise<void>, watchdogPid: number | undefined, adopted: boolean, release: () => void) {
    this.pid = pid;
    this.port = active.port;
    this.browserUrl = `http://127.0.0.1:${active.port}`;
    this.webSocketUrl = `ws://127.0.0.1:${active.port}${active.path}`;
    this.exited = exited;
    this.watchdogPid = watchdogPid;
    this.adopted = adopted;
    this.#tidied = tidied;
    this.#release = release;
    void exited.then((exit) => {
      this.#exit = exit;
    });
  }

  /**
   * Takes over a Chrome a daemon that died left running (checked by findOrphanChrome, its old watchdog already
   * stopped): it gets this daemon's watchdog. It is not this process's child, so its exit is noticed by polling.
   */
  static adopt(orphan: OrphanChrome, orphanGraceMs: number): ChromeProcess {
    let timer: NodeJS.Timeout | undefined;
    const exited = new Promise<ChromeExit>((resolve) => {
      timer = setInterval(() => {
        if (!isProcessAlive(orphan.pid)) {
          clearInterval(timer);
          resolve({ code: null, signal: null });
        }
      }, ADOPTED_EXIT_POLL_MS);
      timer.unref();
    });
    const watchdog = startWatchdog({ chromePid: orphan.pid, userDataDir: orphan.userDataDir, orphanGraceMs, closeGraceMs: CLOSE_GRACE_MS });
    const tidied = tidyAfterExit(exited, watchdog, orphan.userDataDir, orphan.pid);
    return new ChromeProcess(orphan.pid, orphan, exited, tidied, watchdog?.pid, true, () => clearInterval(timer));
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  static buildArgs(options: Pick<ChromeLaunchOptions, 'userDataDir' | 'headless' | 'extraArgs'>): string[] {
    const args = [...BASE_ARGS, `--user-data-dir=${options.userDataDir}`];
    if (options.headless) {
      args.push('--headless=new', '--disable-gpu');
    }
    if (typeof process.getuid === 'function' && process.getuid() === 0) {
      // Chrome refuses to run as root with its sandbox on.
      args.push('--no-sandbox');
    }
    args.push(...options.extraArgs, 'about:blank');
    return args;
  }

  static async launch(options: ChromeLaunchOptions): Promise<ChromeProcess> {
    const { userDataDir, logger } = options;
    await fs.mkdir(userDataDir, { recursive: true, mode: 0o700 });
    await assertProfileNotLocked(userDataDir);
    const portFile = join(userDataDir, 'DevToolsActivePort');
    await fs.rm(portFile, { force: true });

    const args = ChromeProcess.buildArgs(options);
    logger.info(`launching ${options.executable} ${args.join(' ')}`);
    const child = spawn(options.executable, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    options.onSpawned?.();
    let stderrTail = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-4000);
      logger.debug(`chrome: ${chunk.trimEnd()}`);
    });
    const exited = new Promise<ChromeExit>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (error) => {
        stderrTail += `\n${error.message}`;
        resolve({ code: -1, signal: null });
      });
    });
    let early: ChromeExit | undefined;
    void exited.then((exit) => {
      early = exit;
    });

    const watchdog = startWatchdog({ chromePid: child.pid, userDataDir, orphanGraceMs: options.orphanGraceMs ?? 0, closeGraceMs: CLOSE_GRACE_MS });
    const tidied = tidyAfterExit(exited, watchdog, userDataDir, child.pid);
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    while (Date.now() < deadline) {
      const active = await readActivePort(portFile);
      if (active !== undefined && child.pid !== undefined) {
        const release = (): void => {
          child.stderr?.destroy();
          child.unref();
        };
        return new ChromeProcess(child.pid, active, exited, tidied, watchdog?.pid, false, release);
      }
      if (early) {
        throw chromeExitError(early, stderrTail, userDataDir);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    killProcessGroup(child.pid, 'SIGKILL');
    throw new TabmuxError(
      'browser_unavailable',
      `Chrome did not open its DevTools port within ${options.startTimeoutMs ?? 30_000} ms; check that it starts on this machine (see the daemon log). Last output:\n${stderrTail.trim()}`,
    );
  }

  /**
   * Leaves Chrome running and stops following it (`daemon restart`): this process can exit, and Chrome's watchdog
   * keeps it for the next daemon to adopt, or closes it once the grace period is over.
   */
  release(): void {
    this.#release();
  }

  /**
   * Closes Chrome the way a user quitting it would, so cookies and other profile state reach disk: `Browser.close`
   * on a CDP connection (or, without one, SIGTERM to the browser process alone, which Chrome handles as a quit),
   * then a bounded wait for the exit, and only then SIGKILL for the process group. Signalling the whole group at
   * once would kill the network service, which holds the cookie store, before it writes it. The grace counts from
   * the start, and the answer to `Browser.close` is waited for only briefly (SIGTERM follows when none comes): a
   * Chrome that answers nothing is killed `graceMs` after the close began, not after its CDP request gave up.
   * Returns once what Chrome left in the temp dir is removed too (see tidyAfterExit): Chrome exits on SIGTERM without
   * removing it, and a process that exits right after the close would otherwise leave it.
   */
  async close(connection?: Pick<CdpConnection, 'send'>, graceMs = CLOSE_GRACE_MS): Promise<void> {
    if (this.running) {
      const timer = setTimeout(() => killProcessGroup(this.pid, 'SIGKILL'), graceMs);
      const asked = connection ? await withDeadline(connection.send('Browser.close').then(() => true, () => false), Math.min(CLOSE_ANSWER_MS, graceMs), false) : false;
      if (!asked && this.running) {
        signal(this.pid, 'SIGTERM');
      }
      await this.exited;
      clearTimeout(timer);
    }
    // Helpers can outlive the main process for a moment; make sure none is left.
    killProcessGroup(this.pid, 'SIGKILL');
    await withDeadline(this.#tidied, TIDY_MS, undefined);
  }
}

/** How long a close waits for the temp folder's removal (a few file system calls). */
const TIDY_MS = 2_000;

/**
 * Once Chrome has exited: its watchdog is stopped, and the temp folder of its singleton socket, which Chrome removes
 * only on a clean quit (not on SIGTERM, a kill or a crash), is removed (see removeSingletonFolder).
 */
function tidyAfterExit(exited: Promise<ChromeExit>, watchdog: ChildProcess | undefined, userDataDir: string, pid: number | undefined): Promise<void> {
  return exited.then(async () => {
    watchdog?.kill('SIGKILL');
    if (pid !== undefined) {
      await removeSingletonFolder(userDataDir, pid);
    }
  });
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

export interface ActivePort {
  port: number;
  /** The browser target's WebSocket path (`/devtools/browser/<id>`). */
  path: string;
}

/** Chrome writes `DevToolsActivePort` as two lines, the port and the browser's WebSocket path, once it listens. */
export async function readActivePort(portFile: string): Promise<ActivePort | undefined> {
  try {
    const [first, second] = (await fs.readFile(portFile, 'utf8')).split('\n');
    const port = Number.parseInt(first ?? '', 10);
    const path = second?.trim() ?? '';
    return Number.isInteger(port) && port > 0 && path.startsWith('/devtools/browser/') ? { port, path } : undefined;
  } catch {
    return undefined;
  }
}

async function assertProfileNotLocked(userDataDir: string): Promise<void> {
  const pid = await chromeHolding(userDataDir);
  if (pid !== undefined) {
    throw new TabmuxError(
      'profile_locked',
      `Chrome's user-data-dir ${userDataDir} is already in use by another Chrome (pid ${pid}); quit that Chrome or use another tabmux profile`,
    );
  }
}

function chromeExitError(exit: ChromeExit, stderrTail: string, userDataDir: string): TabmuxError {
  if (/existing browser session|ProcessSingleton|profile appears to be in use/i.test(stderrTail)) {
    return new TabmuxError(
      'profile_locked',
      `Chrome handed off to another Chrome already running on ${userDataDir}; quit that Chrome or use another tabmux profile`,
    );
  }
  const how = exit.signal ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
  return new TabmuxError('browser_unavailable', `Chrome exited with ${how} before it was ready; check that it starts on this machine (see the daemon log). Last output:\n${stderrTail.trim() || '(none)'}`);
}
