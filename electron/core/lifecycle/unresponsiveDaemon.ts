import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import { stopLeftoverChrome } from '../browser/stopLeftoverChrome.js';
import { Logger } from '../platform/Logger.js';
import { pidFilePath, profileLogFile, type TabmuxPaths } from '../platform/paths.js';
import { readFileNoFollow } from '../platform/secureFs.js';
import { runningHolder } from '../process/ClaimFile.js';
import { exitedWithin, signalProcess } from '../process/processes.js';
import { noteStopRequested } from './stopRequest.js';

/** A daemon that took a connection but did not answer its hello, named by its profile and process (the socket alone does not tell). */
export async function unresponsiveError(paths: TabmuxPaths, profile: string, waitedMs: number, cause: TabmuxError): Promise<TabmuxError> {
  const holder = await runningHolder(pidFilePath(paths, profile)).catch(() => undefined);
  return new TabmuxError(
    'daemon_unresponsive',
    `the daemon for profile ${profile}${holder === undefined ? '' : ` (pid ${holder.pid})`} took this connection but did not answer within ${waitedMs / 1000} s: its process is stopped or stuck; tabmux daemon stop --profile ${profile} ends it`,
    { cause },
  );
}

/** How long a daemon that answers nothing is given to act on SIGTERM before it is killed. */
const UNRESPONSIVE_TERM_MS = 5_000;

/**
 * How a daemon was stopped: `asked` over its socket, as a stop normally goes; `signalled`, by SIGTERM, since it could
 * not be asked (no socket yet or any more, or it answered nothing) and stopped on it; `killed` with SIGKILL, since it
 * did not stop in time, its Chrome then stopped too.
 */
export type StopHow = 'asked' | 'signalled' | 'killed';

/**
 * What a stopped profile shows a person after a Stop (the tray, the dashboard): nothing when its daemon stopped as
 * asked or none ran, else how it was ended, as `daemon stop` says it. One that had to be signalled or killed may not
 * have said goodbye to its agents.
 */
export function stopNote(paths: TabmuxPaths, profile: string, how: StopHow | undefined): string | null {
  return how === undefined || how === 'asked' ? null : stoppedLine(paths, profile, how);
}

/**
 * The line that tells a person a daemon was stopped, and how when it was not as asked: `daemon stop` prints it, and
 * the tray and the dashboard show it on the stopped profile.
 */
export function stoppedLine(paths: TabmuxPaths, profile: string, how: StopHow): string {
  switch (how) {
    case 'asked':
      return `stopped profile ${profile}`;
    case 'signalled':
      return `stopped profile ${profile} (by SIGTERM: it could not be asked over its socket)`;
    case 'killed':
      return `stopped profile ${profile} (killed: it did not stop in time; its log: ${profileLogFile(paths, profile)})`;
  }
}

/**
 * Ends a daemon that takes connections but answers none (a stopped or stuck process), which cannot be asked to stop:
 * see `stopByPid`, with a few seconds for SIGTERM.
 */
export function stopUnresponsive(paths: TabmuxPaths, profile: string, timeoutMs: number): Promise<StopHow | undefined> {
  return stopByPid(paths, profile, Math.min(UNRESPONSIVE_TERM_MS, timeoutMs), timeoutMs);
}

/**
 * Stops the daemon that holds the profile's pid file by its pid (checked to be the same process), for one that cannot
 * be asked over its socket: continued and sent SIGTERM, on which a daemon stops as when asked (one that only was
 * stopped closes as usual), given `termMs` to exit, then SIGKILL; the Chrome it ran, which it can then no longer
 * close, is stopped too. Says which of the two it took; undefined when no running process holds the profile.
 */
export async function stopByPid(paths: TabmuxPaths, profile: string, termMs: number, timeoutMs: number): Promise<StopHow | undefined> {
  const file = pidFilePath(paths, profile);
  const [holder, record] = await Promise.all([runningHolder(file), recordedChrome(file)]);
  if (holder === undefined) {
    return undefined;
  }
  // Noted first: if it must be killed, its pid file stays, and whoever watches it must not take that for a crash.
  await noteStopRequested(paths, profile, holder.pid).catch(() => undefined);
  signalProcess(holder.pid, 'SIGCONT');
  signalProcess(holder.pid, 'SIGTERM');
  if (await exitedWithin(holder.pid, termMs)) {
    return 'signalled';
  }
  signalProcess(holder.pid, 'SIGKILL');
  await exitedWithin(holder.pid, timeoutMs);
  if (record?.pid === holder.pid) {
    await stopLeftoverChrome(record.chromePid, record.userDataDir, Logger.silent());
  }
  return 'killed';
}

/**
 * The daemon and the Chrome its pid file records, read by hand: the commands agents run stop daemons too, and load
 * no schema library for it.
 */
async function recordedChrome(file: string): Promise<{ pid: number; chromePid: number; userDataDir: string } | undefined> {
  try {
    const json: unknown = JSON.parse((await readFileNoFollow(file)) ?? '');
    if (isRecord(json) && typeof json['pid'] === 'number' && typeof json['chromePid'] === 'number' && typeof json['userDataDir'] === 'string') {
      return { pid: json['pid'], chromePid: json['chromePid'], userDataDir: json['userDataDir'] };
    }
  } catch {
    // No pid file, or not one a daemon wrote: no Chrome to stop.
  }
  return undefined;
}
