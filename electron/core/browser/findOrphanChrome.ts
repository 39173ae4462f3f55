import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../platform/Logger.js';
import { isProcessAlive } from '../process/processes.js';
import { readActivePort, type OrphanChrome } from './ChromeProcess.js';
import { WATCHDOG_NAME } from './ChromeWatchdog.js';

/** What a dead daemon's pid file says about its Chrome (see DaemonPidFile.ts). */
export interface OrphanRecord {
  chromePid: number;
  userDataDir: string;
  /** The DevTools port it recorded; absent in files an older tabmux wrote, whose Chrome is then never adopted. */
  chromePort?: number | undefined;
  watchdogPid?: number | null | undefined;
}

/** How long the orphan's DevTools endpoint may take to answer `/json/version`. */
const VERSION_TIMEOUT_MS = 2000;

/**
 * The Chrome a daemon that died left running, when it really is this profile's: the recorded user-data-dir is this
 * profile's; the pid runs (not a zombie) as a Chrome browser process on that user-data-dir; the user-data-dir's
 * DevToolsActivePort names the recorded port; and that port's `/json/version` answers with the browser endpoint the
 * file names. Each check guards against a different lie: a reused pid, another Chrome on a reused port, a stale file.
 *
 * Its old watchdog is stopped first, so it cannot close the Chrome while it is taken over; a Chrome that fails a check
 * is left to the caller to stop. Undefined when there is nothing to adopt.
 */
export async function findOrphanChrome(record: OrphanRecord, userDataDir: string, logger: Logger): Promise<OrphanChrome | undefined> {
  stopOldWatchdog(record);
  const { chromePid, chromePort } = record;
  if (record.userDataDir !== userDataDir || chromePort === undefined || !isProcessAlive(chromePid)) {
    return undefined;
  }
  const args = commandLine(chromePid);
  if (args === undefined || !args.includes(`--user-data-dir=${userDataDir}`) || args.some((arg) => arg.startsWith('--type='))) {
    logger.warn(`not adopting pid ${chromePid}: it is not the Chrome of ${userDataDir}`);
    return undefined;
  }
  const active = await readActivePort(join(userDataDir, 'DevToolsActivePort'));
  if (active?.port !== chromePort) {
    logger.warn(`not adopting Chrome pid ${chromePid}: its DevToolsActivePort does not name port ${chromePort}`);
    return undefined;
  }
  const endpoint = await browserEndpoint(chromePort);
  if (endpoint !== `ws://127.0.0.1:${chromePort}${active.path}`) {
    logger.warn(`not adopting Chrome pid ${chromePid}: port ${chromePort} does not answer as its DevTools endpoint`);
    return undefined;
  }
  return { pid: chromePid, userDataDir, port: chromePort, path: active.path };
}

/** Stops the dead daemon's watchdog when its command line shows it is the one watching that Chrome. */
function stopOldWatchdog(record: OrphanRecord): void {
  const pid = record.watchdogPid;
  if (pid === undefined || pid === null || !isProcessAlive(pid)) {
    return;
  }
  const args = commandLine(pid);
  // sh -c SCRIPT NAME DAEMON_PID CHROME_PID ...
  const named = args?.indexOf(WATCHDOG_NAME) ?? -1;
  if (args !== undefined && named > 0 && args[named + 2] === String(record.chromePid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

/** A process's arguments: /proc where it exists, else `ps`. Undefined when they cannot be read. */
function commandLine(pid: number): string[] | undefined {
  try {
    if (process.platform === 'linux') {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    }
    return execFileSync('ps', ['-ww', '-o', 'command=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 }).trim().split(/\s+/);
  } catch {
    return undefined;
  }
}

async function browserEndpoint(port: number): Promise<string | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(VERSION_TIMEOUT_MS) });
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null && 'webSocketDebuggerUrl' in body && typeof body.webSocketDebuggerUrl === 'string' ? body.webSocketDebuggerUrl : undefined;
  } catch {
    return undefined;
  }
}
