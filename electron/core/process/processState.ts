import { readFileSync } from 'node:fs';

/**
 * What a pid names right now. A zombie has exited and waits for its parent to reap it: it holds no files, sockets
 * or Chrome, so for every decision tabmux makes it is as dead as a pid that names nothing. (`kill(pid, 0)` succeeds
 * for a zombie, which is why it is not enough on its own.)
 */
export type ProcessState = 'running' | 'zombie' | 'gone';

export interface ProcessSnapshot {
  state: ProcessState;
  /**
   * Tells this process apart from a later one that is given the same pid: the boot id and the start time on Linux,
   * the start time `ps` prints elsewhere. Undefined where neither can be read (then the pid alone has to do).
   */
  identity: string | undefined;
}

const GONE: ProcessSnapshot = { state: 'gone', identity: undefined };

/**
 * The state and identity of a process. Linux reads /proc/<pid>/stat (cheap, no process spawned); other Unix systems
 * ask `ps`, which costs a process, so only decisions that must not guess (who holds a profile) use this there;
 * Windows has neither and falls back to `kill(pid, 0)`.
 */
export function inspectProcess(pid: number, platform: NodeJS.Platform = process.platform): ProcessSnapshot {
  if (!Number.isInteger(pid) || pid <= 0) {
    return GONE;
  }
  if (platform === 'linux') {
    return fromProcStat(pid) ?? fromSignal(pid);
  }
  if (platform === 'win32') {
    return fromSignal(pid);
  }
  return fromPs(pid) ?? fromSignal(pid);
}

/**
 * Whether a process runs, as cheaply as the system allows: zombies count as gone on Linux (/proc), while elsewhere
 * this is `kill(pid, 0)`, since asking `ps` in a polling loop would spawn a process per poll. Decisions about who holds
 * a profile use `isSameProcessRunning`, which asks `ps` there.
 */
export function isRunningCheap(pid: number, platform: NodeJS.Platform = process.platform): boolean {
  if (!Number.isInteger(pid) || pid <= 0) {
    return false;
  }
  return (platform === 'linux' ? (fromProcStat(pid) ?? fromSignal(pid)) : fromSignal(pid)).state === 'running';
}

/** This process's own identity, as `inspectProcess` reports it; computed once. */
export function ownIdentity(): string | undefined {
  ownIdentityCache ??= { identity: inspectProcess(process.pid).identity };
  return ownIdentityCache.identity;
}

let ownIdentityCache: { identity: string | undefined } | undefined;

/**
 * Whether the process that recorded `identity` under `pid` still runs: the pid is in use by a process that is not a
 * zombie, and, when both identities are known, it is the same process rather than a later one given the same pid.
 */
export function isSameProcessRunning(pid: number, identity: string | undefined): boolean {
  const now = inspectProcess(pid);
  return now.state === 'running' && (identity === undefined || now.identity === undefined || now.identity === identity);
}

/**
 * /proc/<pid>/stat is `pid (comm) state ppid …`, where comm may hold spaces and parentheses: the fields are read from
 * after the last ')'. The state is the first of them and the start time (clock ticks since boot) the 20th. Undefined
 * when the file cannot be read, which is also what a /proc mounted with hidepid shows for another user's process.
 */
export function fromProcStat(pid: number, read: (path: string) => string = (path) => readFileSync(path, 'utf8')): ProcessSnapshot | undefined {
  let text: string;
  try {
    text = read(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  return parseProcStat(text, bootId());
}

export function parseProcStat(text: string, boot: string | undefined): ProcessSnapshot | undefined {
  const fields = procStatFields(text);
  const state = fields?.[0];
  const startTime = fields?.[19];
  if (state === undefined || startTime === undefined) {
    return undefined;
  }
  // 'X' (dead) is the instant between a zombie being reaped and its pid disappearing.
  const mapped: ProcessState = state === 'Z' ? 'zombie' : state === 'X' || state === 'x' ? 'gone' : 'running';
  return { state: mapped, identity: boot === undefined ? `start:${startTime}` : `${boot}:${startTime}` };
}

/**
 * A process's start time in clock ticks since boot, as /proc/<pid>/stat gives it (what the Chrome watchdog compares
 * with); undefined where there is no /proc.
 */
export function procStartTime(pid: number): string | undefined {
  try {
    return procStatFields(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[19];
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat after the name, from the state on. */
function procStatFields(text: string): string[] | undefined {
  const close = text.lastIndexOf(')');
  return close < 0 ? undefined : text.slice(close + 1).trim().split(/\s+/);
}

let bootIdCache: { id: string | undefined } | undefined;

/** Start times count from boot, so a record kept across a reboot (TABMUX_HOME on disk) needs the boot's id too. */
function bootId(): string | undefined {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = { id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined };
    } catch {
      bootIdCache = { id: undefined };
    }
  }
  return bootIdCache.id;
}

/**
 * `ps -o stat= -o lstart= -p PID` prints the state letters and the start time to the second. Undefined when ps
 * cannot run at all; a ps that runs and prints nothing means the pid names no process.
 */
function fromPs(pid: number): ProcessSnapshot | undefined {
  // Loaded here: the agents' commands load node:child_process only when they must.
  const { execFileSync } = process.getBuiltinModule('node:child_process');
  let output: string;
  try {
    output = execFileSync('ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5_000 });
  } catch (error) {
    // ps exits 1 for a pid that names no process; any other failure (no ps) leaves the answer to the fallback.
    return error instanceof Error && 'status' in error && error.status === 1 ? GONE : undefined;
  }
  return parsePs(output);
}

export function parsePs(output: string): ProcessSnapshot {
  const line = output.trim();
  if (line === '') {
    return GONE;
  }
  const [stat = '', ...start] = line.split(/\s+/);
  return { state: stat.startsWith('Z') ? 'zombie' : 'running', identity: start.length > 0 ? `lstart:${start.join(' ')}` : undefined };
}

/** `kill(pid, 0)`: the pid is in use (EPERM: by another user's process); it cannot tell a zombie or a reused pid. */
function fromSignal(pid: number): ProcessSnapshot {
  try {
    process.kill(pid, 0);
    return { state: 'running', identity: undefined };
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM' ? { state: 'running', identity: undefined } : GONE;
  }
}
