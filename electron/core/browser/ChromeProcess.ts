import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../Logger.js';
import type { CdpConnection } from './CdpConnection.js';
import { isNodeError } from '../secureFs.js';
import { procStartTime } from '../process/processState.js';
import { isProcessAlive, killProcessGroup } from '../processes.js';

export interface ChromeLaunchOptions {
  executable: string;
  userDataDir: string;
  headless: boolean;
  extraArgs: readonly string[];
  logger: Logger;
  startTimeoutMs?: number;
  /** Called once Chrome's process is spawned, while it starts: work that can overlap its start goes here. */
  onSpawned?: () => void;
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
  #exit: ChromeExit | undefined;

  private constructor(child: ChildProcess, active: ActivePort, exited: Promise<ChromeExit>) {
    this.pid = child.pid ?? -1;
    this.port = active.port;
    this.browserUrl = `http://127.0.0.1:${active.port}`;
    this.webSocketUrl = `ws://127.0.0.1:${active.port}${active.path}`;
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

    const watchdog = startWatchdog(child.pid);
    void exited.then(() => watchdog?.kill('SIGKILL'));
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    while (Date.now() < deadline) {
      const active = await readActivePort(portFile);
      if (active !== undefined) {
        return new ChromeProcess(child, active, exited);
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
   * Closes Chrome the way a user quitting it would, so cookies and other profile state reach disk: `Browser.close`
   * on a CDP connection (or, without one, SIGTERM to the browser process alone, which Chrome handles as a quit),
   * then a bounded wait for the exit, and only then SIGKILL for the process group. Signalling the whole group at
   * once would kill the network service, which holds the cookie store, before it writes it.
   */
  async close(connection?: Pick<CdpConnection, 'send'>, graceMs = CLOSE_GRACE_MS): Promise<void> {
    if (this.running) {
      const asked = connection ? await connection.send('Browser.close').then(() => true, () => false) : false;
      if (!asked && this.running) {
        signal(this.pid, 'SIGTERM');
      }
      const timer = setTimeout(() => killProcessGroup(this.pid, 'SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    // Helpers can outlive the main process for a moment; make sure none is left.
    killProcessGroup(this.pid, 'SIGKILL');
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/**
 * Whether the daemon ($1) still runs, for the watchdog. Where /proc exists, a zombie (state Z or X) is gone, and so
 * is a process that started at another time than $2 (clock ticks since boot, the 20th field after the name): a
 * daemon whose parent never reaps it stays a zombie forever, and its pid can be reused. Elsewhere, `kill -0`. Only
 * shell builtins run here, so checking once a second costs no process beyond `sleep`.
 */
export const WATCHDOG_DAEMON_RUNS = [
  'daemon_runs() {',
  '  [ -r "/proc/$1/stat" ] || { kill -0 "$1" 2>/dev/null; return; }',
  '  want=$2',
  '  read -r stat 2>/dev/null < "/proc/$1/stat" || return 1',
  '  set -- ${stat##*") "}',
  '  case "$1" in Z|X|x) return 1 ;; esac',
  '  [ -z "$want" ] || [ "${20}" = "$want" ]',
  '}',
].join('\n');

/**
 * Chrome runs in its own process group, so it would outlive a daemon killed with SIGKILL. A tiny shell watchdog
 * (no Node, ~1 MB) kills Chrome's group once the daemon is gone (see WATCHDOG_DAEMON_RUNS); it is itself killed when
 * Chrome exits first, so it never signals a recycled process group.
 */
function startWatchdog(chromePid: number | undefined): ChildProcess | undefined {
  if (process.platform === 'win32' || chromePid === undefined) {
    return undefined;
  }
  const startTime = procStartTime(process.pid) ?? '';
  const script = `${WATCHDOG_DAEMON_RUNS}\nwhile daemon_runs "$1" "$3"; do sleep 1; done; kill -9 "-$2" 2>/dev/null`;
  const watchdog = spawn('/bin/sh', ['-c', script, 'tabmux-chrome-watchdog', String(process.pid), String(chromePid), startTime], { detached: true, stdio: 'ignore' });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog;
}

interface ActivePort {
  port: number;
  /** The browser target's WebSocket path (`/devtools/browser/<id>`). */
  path: string;
}

/** Chrome writes `DevToolsActivePort` as two lines, the port and the browser's WebSocket path, once it listens. */
async function readActivePort(portFile: string): Promise<ActivePort | undefined> {
  try {
    const [first, second] = (await fs.readFile(portFile, 'utf8')).split('\n');
    const port = Number.parseInt(first ?? '', 10);
    const path = second?.trim() ?? '';
    return Number.isInteger(port) && port > 0 && path.startsWith('/devtools/browser/') ? { port, path } : undefined;
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
  return new TabmuxError('browser_unavailable', `Chrome exited with ${how} before it was ready; check that it starts on this machine (see the daemon log). Last output:\n${stderrTail.trim() || '(none)'}`);
}
