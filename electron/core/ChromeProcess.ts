import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { TabmuxError } from '../../shared/errors.js';
import type { Logger } from './Logger.js';
import { isNodeError } from './secureFs.js';
import { isProcessAlive, killProcessGroup } from './processes.js';

export interface ChromeLaunchOptions {
  executable: string;
  userDataDir: string;
  headless: boolean;
  extraArgs: readonly string[];
  logger: Logger;
  startTimeoutMs?: number;
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

/**
 * One Chrome launched on a profile's own user-data-dir with a DevTools port on loopback. Chrome runs in its own
 * process group so stopping it takes its helpers (renderers, GPU, zygote) along.
 */
export class ChromeProcess {
  readonly pid: number;
  readonly port: number;
  readonly browserUrl: string;
  readonly exited: Promise<ChromeExit>;
  #exit: ChromeExit | undefined;

  private constructor(
    child: ChildProcess,
    port: number,
    exited: Promise<ChromeExit>,
  ) {
    this.pid = child.pid ?? -1;
    this.port = port;
    this.browserUrl = `http://127.0.0.1:${port}`;
    this.exited = exited;
    void exited.then((exit) => {
      this.#exit = exit;
    });
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

    const watchdog = startWatchdog(child.pid);
    void exited.then(() => watchdog?.kill('SIGKILL'));
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    while (Date.now() < deadline) {
      const port = await readPort(portFile);
      if (port !== undefined) {
        return new ChromeProcess(child, port, exited);
      }
      if (early) {
        throw chromeExitError(early, stderrTail, userDataDir);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    killProcessGroup(child.pid, 'SIGKILL');
    throw new TabmuxError('chrome_failed', `Chrome did not open its DevTools port within ${options.startTimeoutMs ?? 30_000} ms. Last output:\n${stderrTail.trim()}`);
  }

  /** Stops Chrome and its helpers: SIGTERM to the group, SIGKILL after the grace period. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) {
      return;
    }
    killProcessGroup(this.pid, 'SIGTERM');
    const timer = setTimeout(() => killProcessGroup(this.pid, 'SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    // Helpers can outlive the main process for a moment; make sure none is left.
    killProcessGroup(this.pid, 'SIGKILL');
  }
}

/**
 * Chrome runs in its own process group, so it would outlive a daemon killed with SIGKILL. A tiny shell watchdog
 * (no Node, ~1 MB) kills Chrome's group once the daemon is gone; it is itself killed when Chrome exits first, so it
 * never signals a recycled process group.
 */
function startWatchdog(chromePid: number | undefined): ChildProcess | undefined {
  if (process.platform === 'win32' || chromePid === undefined) {
    return undefined;
  }
  const script = 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -9 "-$2" 2>/dev/null';
  const watchdog = spawn('/bin/sh', ['-c', script, 'tabmux-chrome-watchdog', String(process.pid), String(chromePid)], { detached: true, stdio: 'ignore' });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog;
}

async function readPort(portFile: string): Promise<number | undefined> {
  try {
    const text = await fs.readFile(portFile, 'utf8');
    const port = Number.parseInt(text.split('\n')[0] ?? '', 10);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Chrome keeps a `SingletonLock` symlink (`<host>-<pid>`) in a user-data-dir it holds. */
async function assertProfileNotLocked(userDataDir: string): Promise<void> {
  let target: string;
  try {
    target = await fs.readlink(join(userDataDir, 'SingletonLock'));
  } catch (error) {
    if (isNodeError(error) && (error.code === 'ENOENT' || error.code === 'EINVAL')) {
      return;
    }
    throw error;
  }
  const dash = target.lastIndexOf('-');
  const host = target.slice(0, dash);
  const pid = Number.parseInt(target.slice(dash + 1), 10);
  if (host === hostname() && Number.isInteger(pid) && isProcessAlive(pid)) {
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
  return new TabmuxError('chrome_failed', `Chrome exited with ${how} before it was ready. Last output:\n${stderrTail.trim() || '(none)'}`);
}
