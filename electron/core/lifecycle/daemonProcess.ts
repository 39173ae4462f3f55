import { closeSync, openSync, promises as fs, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isErrorCode, TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import type { DaemonStartedBy, DaemonStatus } from '../../../shared/model.js';
import { daemonEnv } from './daemonEnv.js';
import { daemonLogTail, readDaemonLog } from './daemonLog.js';
import { pidFilePath, profileDataDir, profileLogFile, socketPath, type TabmuxPaths } from '../platform/paths.js';
import { runningHolder } from '../process/ClaimFile.js';
import { unresponsiveError } from './unresponsiveDaemon.js';
import { stopWasRequested } from './stopRequest.js';
import { ensureSecureDir } from '../platform/secureFs.js';
import { DaemonClient, HELLO_TIMEOUT_MS, type DaemonClientOptions } from '../transport/DaemonClient.js';
import { loadProtocolSchemas } from '../transport/protocolSchemas.js';
import { cliEntryPoint } from '../platform/version.js';

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
  /**
   * Who starts the daemon, should one be spawned: `daemon-start` and `app` (the tray, the dashboard) keep it until it
   * is stopped; `demand`, the default, is a command that needed one, and the daemon exits once idle (see Daemon).
   * `daemon-start` also keeps a running daemon that was started on demand.
   */
  startedBy?: Exclude<DaemonStartedBy, 'daemon-run'>;
}

/**
 * How long a refused connection is tried again while the profile's pid file names a running daemon: that daemon is
 * between publishing its socket and serving, or replacing a dead daemon's socket, and answers in a moment.
 */
const REFUSED_RETRY_MS = 10_000;
const REFUSED_RETRY_FIRST_MS = 10;
const REFUSED_RETRY_MAX_MS = 250;

/** `looksOnly`: the connection only looks (status, lists, the log), so it keeps no on-demand daemon from idling out. */
export type ConnectOptions = Pick<DaemonClientOptions, 'looksOnly' | 'helloTimeoutMs'>;

/**
 * A connection to the profile's daemon, or undefined when none runs. A busy socket is waited for (DaemonClient), and
 * so is a refused one while the pid file's holder runs; only a missing socket, a socket whose daemon is dead, or a
 * daemon that hangs up during the hello count as "not running".
 */
export async function tryConnect(paths: TabmuxPaths, profile: string, clientName?: string, options: ConnectOptions = {}): Promise<DaemonClient | undefined> {
  const result = await connectUnlessDown(paths, profile, clientName, options);
  if ('client' in result) {
    return result.client;
  }
  if (result.down.code === 'daemon_not_running') {
    return undefined;
  }
  if (result.down.code === 'daemon_unresponsive') {
    throw await unresponsiveError(paths, profile, options.helloTimeoutMs ?? HELLO_TIMEOUT_MS, result.down);
  }
  throw result.down;
}

/** Connect errors that mean no daemon is there: no socket file, or a stale one that nothing listens on. */
const NOT_RUNNING_ERRNOS: readonly unknown[] = ['ENOENT', 'ECONNREFUSED'];

/**
 * Whether a profile's daemon runs, for decisions that must not guess. A daemon whose socket has not appeared yet but
 * that holds the profile's pid file runs (it is starting). Only a missing or dead socket with no running holder
 * counts as "not running"; anything else (a socket we may not open, a listener that hangs up or answers something
 * else) is thrown, since a daemon may well be there.
 */
export async function isDaemonRunning(paths: TabmuxPaths, profile: string): Promise<boolean> {
  const result = await connectUnlessDown(paths, profile, undefined, { looksOnly: true });
  if ('client' in result) {
    result.client.close();
    return true;
  }
  const cause: unknown = result.down.cause;
  if (result.down.code === 'daemon_not_running' && isRecord(cause) && NOT_RUNNING_ERRNOS.includes(cause['code'])) {
    return (await runningHolder(pidFilePath(paths, profile))) !== undefined;
  }
  throw new TabmuxError(
    result.down.code,
    `cannot tell whether the daemon for profile ${profile} is running (${result.down.message}); check with: tabmux daemon status --profile ${profile}`,
    { cause: result.down },
  );
}

/**
 * Connects, or says why not; a refused socket whose daemon runs is tried again (see REFUSED_RETRY_MS). So is a
 * daemon that hung up with the hello unread: one that stops takes no new connection (SocketServer.refuseNew), and a
 * connection it had not yet taken is reset rather than closed. Like a daemon that closes during the hello, it counts
 * as "not running" for tryConnect once nothing holds the profile (the caller starts another), never as the caller's
 * failure; isDaemonRunning, which must not guess, still calls it unclear.
 */
async function connectUnlessDown(paths: TabmuxPaths, profile: string, clientName: string | undefined, options: ConnectOptions = {}): Promise<{ client: DaemonClient } | { down: TabmuxError }> {
  const deadline = Date.now() + REFUSED_RETRY_MS;
  for (let delay = REFUSED_RETRY_FIRST_MS; ; delay = Math.min(delay * 2, REFUSED_RETRY_MAX_MS)) {
    try {
      return { client: await DaemonClient.connect(socketPath(paths, profile), clientName, options) };
    } catch (error) {
      if (!(error instanceof TabmuxError)) {
        throw error;
      }
      const cause: unknown = error.cause;
      const refused = error.code === 'daemon_not_running' && isRecord(cause) && cause['code'] === 'ECONNREFUSED';
      const hungUp = error.code === 'not_delivered';
      const down = hungUp ? new TabmuxError('daemon_not_running', `the daemon for profile ${profile} hung up before it read this connection's hello (it was stopping)`, { cause: error }) : error;
      if (!(refused || hungUp) || Date.now() >= deadline || (await runningHolder(pidFilePath(paths, profile))) === undefined) {
        return { down };
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** A daemon that `startDaemon` spawned, and how it exited once it has. */
interface SpawnedDaemon {
  pid: number | undefined;
  exitCode: number | null | undefined;
}

/**
 * Daemons spawned by one `startDaemon` at most. Another is spawned only when the last one exited with 0 without a
 * daemon answering (it found another daemon, which then stopped); this bounds that loop.
 */
const MAX_SPAWNS = 3;

/**
 * Starts a profile's daemon in the background and returns once it accepts calls. Idempotent: an already running
 * daemon is simply reported. Safe to run many times at once (scripts, agents, the tray): a daemon that holds the
 * profile's pid file is waited for rather than raced, and of daemons spawned at once, one claims the profile and the
 * others wait for it and exit (see runDaemon), so every caller ends up served by the same daemon. `started` says
 * whether that daemon is the one this call spawned. A daemon that fails to start is explained with its error or the
 * tail of its log.
 */
export async function startDaemon(paths: TabmuxPaths, profile: string, options: StartOptions = {}): Promise<{ status: DaemonStatus; started: boolean }> {
  const existing = await tryConnect(paths, profile);
  if (existing) {
    try {
      const status = await existing.call('tabmux/status');
      // `daemon start` asks for a daemon that stays: one that a command started on demand is kept from now on.
      if (options.startedBy === 'daemon-start' && status.lifetime?.startedBy === 'demand') {
        status.lifetime = (await existing.call('tabmux/keep')).lifetime;
      }
      return { status, started: false };
    } finally {
      existing.close();
    }
  }
  await fs.mkdir(profileDataDir(paths, profile), { recursive: true, mode: 0o700 });
  // Made (and checked) here as the daemon makes it, so that the socket's appearing there can be watched for.
  await ensureSecureDir(paths.runtimeDir);
  const logFile = profileLogFile(paths, profile);
  const logStart = await fs.stat(logFile).then((stat) => stat.size).catch(() => 0);
  // The status is checked against the protocol's schemas: a build without them loads them while the daemon starts.
  void loadProtocolSchemas().catch(() => undefined);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const socketWatch = watchForSocket(socketPath(paths, profile));
  let spawned: SpawnedDaemon | undefined;
  let spawns = 0;
  try {
    while (Date.now() < deadline) {
      const client = await tryConnect(paths, profile).catch(() => undefined);
      if (client) {
        try {
          const status = await client.call('tabmux/status').catch(async (error: unknown) => {
            // The daemon closed this connection as it became ready: stopped meanwhile, and not to be started again.
            if (await wasStopped(paths, profile, spawned)) {
              throw stoppedWhileStarting(profile);
            }
            // Or it is going for another reason (a restart hands its Chrome to a new daemon, or it crashed): looked at
            // again, as any daemon not ready yet is.
            const code = TabmuxError.from(error).code;
            if (code === 'daemon_not_running' || code === 'not_delivered') {
              return undefined;
            }
            throw error;
          });
          if (status?.state === 'ready') {
            return { status, started: spawned !== undefined && status.pid === spawned.pid };
          }
        } finally {
          client.close();
        }
      } else if (spawned === undefined || spawned.exitCode !== undefined) {
        // No socket answers yet. A running holder of the pid file is a daemon on its way up (or down): its socket is
        // waited for, and no daemon is spawned only to find the profile taken.
        if ((await runningHolder(pidFilePath(paths, profile))) === undefined) {
          if (await wasStopped(paths, profile, spawned)) {
            throw stoppedWhileStarting(profile);
          }
          if (spawned !== undefined && (spawned.exitCode !== 0 || spawns >= MAX_SPAWNS)) {
            throw await startFailure(paths, profile, logStart);
          }
          spawned = await spawnDaemon(profile, options, logFile);
          spawns += 1;
        }
      }
      await socketWatch.wait();
    }
  } finally {
    socketWatch.close();
  }
  throw new TabmuxError('daemon_start_failed', `the daemon for profile ${profile} did not become ready in time; see ${logFile}, or check with: tabmux daemon status --profile ${profile}`);
}

/** Whether the daemon this start spawned was stopped by its pid (`daemon stop` or the tray's Stop before its socket opened). */
function wasStopped(paths: TabmuxPaths, profile: string, spawned: SpawnedDaemon | undefined): Promise<boolean> {
  return spawned?.pid === undefined ? Promise.resolve(false) : stopWasRequested(paths, profile, spawned.pid);
}

function stoppedWhileStarting(profile: string): TabmuxError {
  return new TabmuxError('daemon_start_failed', `the daemon for profile ${profile} was stopped while it started (tabmux daemon stop, or Stop in the tray); start it again if that was not meant`);
}

/** Spawns `tabmux daemon run` in the background, its output appended to the profile's log. */
async function spawnDaemon(profile: string, options: StartOptions, logFile: string): Promise<SpawnedDaemon> {
  const log = openSync(logFile, 'a', 0o600);
  // --json makes a failing daemon write its error code, so the caller sees profile_locked, chrome_not_found, ...
  const args = [cliEntryPoint(), 'daemon', 'run', '--profile', profile, '--json', '--started-by', options.startedBy ?? 'demand'];
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
    env: daemonEnv(process.env),
  });
  closeSync(log);
  const spawned: SpawnedDaemon = { pid: child.pid, exitCode: undefined };
  child.once('exit', (code) => {
    spawned.exitCode = code;
  });
  // A program that cannot be run at all (a wrong execPath) fails like a daemon that exited at once.
  child.once('error', () => {
    spawned.exitCode ??= -1;
  });
  child.unref();
  return spawned;
}

/**
 * For a daemon that found its profile held by another (a `daemon run` that lost the race to claim it): waits until
 * that daemon answers on its socket and returns its pid, or returns undefined once no running process holds the
 * profile any more (the holder failed or stopped before serving), so the caller can claim it after all. `gaveUp`
 * ends the wait early, with 'gave up'.
 */
export async function awaitRunningDaemon(paths: TabmuxPaths, profile: string, timeoutMs: number, gaveUp?: Promise<void>): Promise<number | 'gave up' | undefined> {
  const deadline = Date.now() + timeoutMs;
  const socketWatch = watchForSocket(socketPath(paths, profile));
  let holderPid: number | undefined;
  let given = false;
  void gaveUp?.then(() => (given = true));
  try {
    while (Date.now() < deadline) {
      if (given) {
        return 'gave up';
      }
      const client = await tryConnect(paths, profile, 'tabmux-daemon', { looksOnly: true }).catch(() => undefined);
      if (client) {
        client.close();
        return client.hello.pid;
      }
      const holder = await runningHolder(pidFilePath(paths, profile));
      if (holder === undefined) {
        return undefined;
      }
      holderPid = holder.pid;
      await (gaveUp ? Promise.race([socketWatch.wait(), gaveUp]) : socketWatch.wait());
    }
  } finally {
    socketWatch.close();
  }
  throw new TabmuxError(
    'daemon_running',
    `a daemon for profile ${profile} holds it (pid ${String(holderPid)}) but did not answer on its socket within ${Math.round(timeoutMs / 1000)} s; check it with: tabmux daemon status --profile ${profile}, or end that process and start again`,
  );
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
