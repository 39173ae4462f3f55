import { isRunningCheap } from './processState.js';

/** Process helpers that never throw for a process that is already gone. */

/**
 * Whether a process still runs. A zombie (exited, not yet reaped by its parent) does not: it holds nothing, and where
 * nothing reaps orphans it would otherwise look alive forever. See process/processState.ts for how each system tells.
 */
export function isProcessAlive(pid: number): boolean {
  return isRunningCheap(pid);
}

/** Signals a whole process group (negative pid) and falls back to the single process where groups do not exist. */
export function killProcessGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined || pid <= 0) {
    return;
  }
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Signals one process, if it is still there. */
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** Whether a process is gone within `timeoutMs`, looked at every 50 ms. */
export async function exitedWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
