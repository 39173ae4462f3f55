import { closeSync, openSync, promises as fs, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isErrorCode, TabmuxError } from '../../shared/errors.js';
import { isRecord } from '../../shared/isRecord.js';
import type { DaemonStatus } from '../../shared/model.js';
import { daemonLogTail, readDaemonLog } from './daemonLog.js';
import { profileDataDir, profileLogFile, socketPath, type TabmuxPaths } from './paths.js';
import { isProcessAlive } from './processes.js';
import { ensureSecureDir } from './secureFs.js';
import { DaemonClient } from './transport/DaemonClient.js';
import { loadProtocolSchemas } from './transport/protocolSchemas.js';
import { cliEntryPoint } from './version.js';

/**
 * How often a starting daemon is asked whether it is ready. Its socket appears only once it is, and a connect to a
 * missing socket fails at once, so asking often costs little and a first call waits less.
 */
const START_POLL_MS = 20;
/** The same when the socket's folder is watched: the socket's appearing wakes the wait, and this is the fallback. */
const WATCHED_POLL_MS = 250;

export interface StartOptions {
  chrome?: string | undefined;
  headless?: boolean | undefined;
  timeoutMs?: number;
  /** The program that runs `tabmux daemon run` (Electron passes its own binary with ELECTRON_RUN_AS_NODE). */
  execPath?: string;
}

export async function tryConnect(paths: TabmuxPaths, profile: string, clientName?: string): Promise<DaemonClient | undefined> {
  try {
    return await DaemonClient.connect(socketPath(paths, profile), clientName);
  } catch (error) {
    if (error instanceof TabmuxError && error.code === 'daemon_not_running') {
      return undefined;
    }
    throw error;
  }
}

/** Connect errors that mean no daemon is there: no socket file, or a stale one that nothing listens on. */
const NOT_RUNNING_ERRNOS: readonly unknown[] = ['ENOENT', 'ECONNREFUSED'];

/**
 * Whether a profile's daemon runs, for decisions that must not guess: only a missing socket or a refused connection
 * count as "not running". Anything else (a socket we may not open, a listener that hangs up or answers something
 * else) is thrown, since a daemon may well be there.
 */
export async function isDaemonRunning(paths: TabmuxPaths, profile: string): Promise<boolean> {
  try {
    (await DaemonClient.connect(socketPath(paths, profile))).close();
    return true;
  } catch (error) {
    const cause: unknown = error instanceof Error ? error.cause : undefined;
    if (error instanceof TabmuxError && error.code === 'daemon_not_running' && isRecord(cause) && NOT_RUNNING_ERRNOS.includes(cause['code'])) {
      return false;
    }
    const failure = TabmuxError.from(error);
    throw new TabmuxError(
      failure.code,
      `cannot tell whether the daemon for profile ${profile} is running (${failure.message}); check with: tabmux daemon status --profile ${profile}`,
      { cause: error },
    );
  }
}

/**
 * Starts a profile's daemon in the background and returns once it accepts calls. Idempotent: an already running
 * daemon is simply reported. A daemon that fails to start is explained with the tail of its log.
 */
export async function startDaemon(paths: TabmuxPaths, profile: string, options: StartOptions = {}): Promise<{ status: DaemonStatus; started: boolean }> {
  const existing = await tryConnect(paths, profile);
  if (existing) {
    try {
      return { status: await existing.call('tabmux/status'), started: false };
    } finally {
      existing.close();
    }
  }
  await fs.mkdir(profileDataDir(paths, profile), { recursive: true, mode: 0o700 });
  // Made (and checked) here as the daemon makes it, so that the socket's appearing there can be watched for.
  await ensureSecureDir(paths.runtimeDir);
  const logFile = profileLogFile(paths, profile);
  const logStart = await fs.stat(logFile).then((stat) => stat.size).catch(() => 0);
  const log = openSync(logFile, 'a', 0o600);
  // --json makes a failing daemon write its error code, so the caller sees profile_locked, chrome_not_found, ...
  const args = [cliEntryPoint(), 'daemon', 'run', '--profile', profile, '--json'];
  if (options.chrome) {
    args.push('--chrome', options.chrome);
  }
  if (options.headless !== undefined) {
    args.push(options.headless ? '--headless' : '--no-headless');
  }
  // Loaded here: the commands built with this file seldom start a daemon, and load as little as they can.
  const { spawn } = await import('node:child_process');
  const child = spawn(options.execPath ?? process.execPath, args, {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  closeSync(log);
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  child.unref();
  // The status is checked against the protocol's schemas: a build without them loads them while the daemon starts.
  void loadProtocolSchemas().catch(() => undefined);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const socketWatch = watchForSocket(socketPath(paths, profile));
  try {
    while (Date.now() < deadline) {
      if (exited !== undefined) {
        throw await startFailure(paths, profile, logStart);
      }
      const client = await tryConnect(paths, profile).catch(() => undefined);
      if (client) {
        try {
          const status = await client.call('tabmux/status');
          if (status.state === 'ready') {
            return { status, started: true };
          }
        } finally {
          client.close();
        }
      }
      await socketWatch.wait();
    }
  } finally {
    socketWatch.close();
  }
  throw new TabmuxError('daemon_start_failed', `the daemon for profile ${profile} did not become ready in time; see ${logFile}, or check with: tabmux daemon status --profile ${profile}`);
}

interface SocketWatch {
  /** Resolves when something changed next to the socket, or after the poll interval, whichever comes first. */
  wait(): Promise<void>;
  close(): void;
}

/**
 * Wakes the wait for a starting daemon the moment its socket appears (inotify on Linux, FSEvents on macOS), so
 * `daemon start` returns as soon as the daemon is ready rather than at the next poll. Where the folder cannot be
 * watched (a named pipe on Windows, a file system without notifications), it polls.
 */
export function watchForSocket(socket: string, pollMs = { watched: WATCHED_POLL_MS, unwatched: START_POLL_MS }): SocketWatch {
  let wake: (() => void) | undefined;
  // A change seen while no wait was pending (between a failed connect and the next wait) wakes the next wait at once.
  let missed = false;
  let watcher: FSWatcher | undefined;
  if (process.platform !== 'win32') {
    try {
      watcher = watch(dirname(socket), { persistent: false }, (_event, name) => {
        if (name === null || name === basename(socket)) {
          missed = wake === undefined;
          wake?.();
        }
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined;
    }
  }
  return {
    wait: () =>
      new Promise<void>((resolve) => {
        if (missed) {
          missed = false;
          resolve();
          return;
        }
        const done = (): void => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, watcher ? pollMs.watched : pollMs.unwatched);
        wake = done;
      }),
    close: () => watcher?.close(),
  };
}

/** Asks a daemon to stop and waits until its process is gone. Returns false when none was running. */
export async function stopDaemon(paths: TabmuxPaths, profile: string, timeoutMs = 20_000): Promise<boolean> {
  const client = await tryConnect(paths, profile);
  if (!client) {
    return false;
  }
  const pid = client.hello.pid;
  const closed = new Promise<void>((resolve) => client.onClose(resolve));
  await client.call('tabmux/stop').catch(() => undefined);
  await closed;
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Connects to a profile's daemon, starting it first when none is running. */
export async function connectOrStart(paths: TabmuxPaths, profile: string, clientName?: string, options: StartOptions = {}): Promise<DaemonClient> {
  const client = await tryConnect(paths, profile, clientName);
  if (client) {
    return client;
  }
  await startDaemon(paths, profile, options);
  return DaemonClient.connect(socketPath(paths, profile), clientName);
}

/** The daemon's own error (its code and message) when it wrote one, else the end of its log. */
async function startFailure(paths: TabmuxPaths, profile: string, logStart: number): Promise<TabmuxError> {
  const text = await readDaemonLog(paths, profile, logStart);
  for (const line of text.trim().split('\n').reverse()) {
    if (!line.startsWith('{')) {
      continue;
    }
    try {
      const parsed: unknown = JSON.parse(line);
      if (isRecord(parsed) && isRecord(parsed['error']) && typeof parsed['error']['message'] === 'string') {
        const code = parsed['error']['code'];
        return new TabmuxError(isErrorCode(code) ? code : 'daemon_start_failed', parsed['error']['message']);
      }
    } catch {
      // Not a JSON line; keep looking.
    }
  }
  return new TabmuxError('daemon_start_failed', `the daemon for profile ${profile} failed to start:\n${await daemonLogTail(paths, profile, { from: logStart })}`);
}
