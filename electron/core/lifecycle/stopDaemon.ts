import { existsSync } from 'node:fs';
import { TabmuxError } from '../../../shared/errors.js';
import type { DaemonStatus } from '../../../shared/model.js';
import { withDeadline } from '../../../shared/withDeadline.js';
import { pidFilePath, socketPath, type TabmuxPaths } from '../platform/paths.js';
import { runningHolder } from '../process/ClaimFile.js';
import { exitedWithin } from '../process/processes.js';
import { awaitRunningDaemon, startDaemon, tryConnect, type StartOptions } from './daemonProcess.js';
import { stopByPid, stopUnresponsive, type StopHow } from './unresponsiveDaemon.js';

/**
 * Asks a daemon to stop and waits until its process is gone; says how it went (see StopHow), undefined when none was
 * running. A daemon that does not answer (stopped or stuck, before its hello or after it) is ended by its pid instead:
 * see `stopUnresponsive`. So is one that holds the profile with no socket to ask it by: starting (its socket opens
 * once its Chrome runs) or stopping (its socket closes first), given the whole `timeoutMs` to act on SIGTERM as it
 * would on being asked.
 * A daemon that closed its connections as asked but is still running `timeoutMs` later is stuck in its stop, and is
 * ended the same way. A stop that keeps the browser (a restart's) first waits for a daemon with no socket: see
 * awaitSocketless. `helloTimeoutMs`: how long its hello is waited for (HELLO_TIMEOUT_MS unless given).
 */
export async function stopDaemon(paths: TabmuxPaths, profile: string, timeoutMs = 20_000, options: { keepBrowser?: boolean; helloTimeoutMs?: number } = {}): Promise<StopHow | undefined> {
  if (options.keepBrowser === true) {
    await awaitSocketless(paths, profile);
  }
  const connectOptions = options.helloTimeoutMs === undefined ? {} : { helloTimeoutMs: options.helloTimeoutMs };
  const client = await tryConnect(paths, profile, undefined, connectOptions).catch((error: unknown) => {
    if (TabmuxError.from(error).code !== 'daemon_unresponsive') {
      throw error;
    }
    return 'unresponsive' as const;
  });
  if (client === 'unresponsive') {
    return stopUnresponsive(paths, profile, timeoutMs);
  }
  if (!client) {
    return stopByPid(paths, profile, timeoutMs, timeoutMs);
  }
  const pid = client.hello.pid;
  const closed = new Promise<void>((resolve) => client.onClose(resolve));
  void client.call('tabmux/stop', options.keepBrowser === true ? { keepBrowser: true } : {}).catch(() => undefined);
  // A daemon stopping closes its connections as it goes; one still holding this one this long after being asked, or
  // that stopped answering meanwhile (the connection gave up on it), got stuck after its hello, and can only be ended
  // as one that answers nothing.
  if ((await withDeadline(closed, timeoutMs, 'late')) === 'late' || client.abandonedWith !== undefined) {
    client.close();
    return stopUnresponsive(paths, profile, timeoutMs);
  }
  if (await exitedWithin(pid, timeoutMs)) {
    return 'asked';
  }
  // Gone between the two looks, or not: either way it was asked first.
  return (await stopUnresponsive(paths, profile, timeoutMs)) ?? 'asked';
}

/**
 * `daemon stop --all`: stops the daemons of the given profiles (every profile under this home), at once, each as
 * `stopDaemon` does. Says which had one running, and which could not be stopped (the others are stopped all the same).
 */
export async function stopAllDaemons(paths: TabmuxPaths, profiles: readonly string[], timeoutMs = 20_000): Promise<{ stopped: string[]; how: Record<string, StopHow>; failed: { profile: string; error: TabmuxError }[] }> {
  const outcomes = await Promise.allSettled(profiles.map((profile) => stopDaemon(paths, profile, timeoutMs)));
  const stopped: string[] = [];
  const how: Record<string, StopHow> = {};
  const failed: { profile: string; error: TabmuxError }[] = [];
  outcomes.forEach((outcome, index) => {
    const profile = profiles[index] ?? '';
    if (outcome.status === 'rejected') {
      failed.push({ profile, error: TabmuxError.from(outcome.reason) });
    } else if (outcome.value !== undefined) {
      stopped.push(profile);
      how[profile] = outcome.value;
    }
  });
  return { stopped, how, failed };
}

/**
 * `daemon restart`: the running daemon exits leaving its Chrome, sessions and tabs (see Daemon.stop), and a new one
 * adopts them; with none running, a plain start. `restarted` says whether one was running. A daemon still starting
 * is waited for first (see awaitSocketless). `onCallsUnderWay` is told how many calls the running daemon lets finish
 * first, when there are any.
 */
export async function restartDaemon(
  paths: TabmuxPaths,
  profile: string,
  options: StartOptions & { onCallsUnderWay?: (count: number) => void } = {},
): Promise<{ status: DaemonStatus; restarted: boolean }> {
  await awaitSocketless(paths, profile);
  // The new daemon is kept or exits when idle as the old one would have; a daemon not running is started to stay.
  const running = await tryConnect(paths, profile);
  const previous = await running?.call('tabmux/status').finally(() => running.close());
  const { onCallsUnderWay, ...start } = options;
  const underWay = previous?.queue.filter((entry) => entry.state === 'running').length ?? 0;
  if (underWay > 0) {
    onCallsUnderWay?.(underWay);
  }
  const startedBy = previous?.lifetime?.startedBy;
  const restarted = (await stopDaemon(paths, profile, 20_000, { keepBrowser: true })) !== undefined;
  const { status } = await startDaemon(paths, profile, { startedBy: startedBy === undefined || startedBy === 'daemon-run' ? 'daemon-start' : startedBy, ...start });
  return { status, restarted };
}

/** How long a restart waits for a daemon it caught with no socket to open one (as long as a start waits for one). */
const SOCKETLESS_WAIT_MS = 60_000;

/**
 * A daemon that holds the profile with no socket is starting (it opens its socket once its Chrome runs) or stopping
 * (it closed its socket first). A restart asks it over its socket to leave its Chrome, sessions and tabs to the next
 * daemon; SIGTERM, the only way to reach a daemon with no socket, would close them. So such a daemon is waited for:
 * one that comes up is restarted as any other, one that goes leaves the profile free. One that does neither within
 * the wait is left to the stop, which ends it by its pid.
 */
async function awaitSocketless(paths: TabmuxPaths, profile: string): Promise<void> {
  if (existsSync(socketPath(paths, profile)) || (await runningHolder(pidFilePath(paths, profile))) === undefined) {
    return;
  }
  await awaitRunningDaemon(paths, profile, SOCKETLESS_WAIT_MS).catch(() => undefined);
}
