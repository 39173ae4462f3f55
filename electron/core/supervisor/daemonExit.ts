import { readDaemonPidFile } from '../lifecycle/DaemonPidFile.js';
import { stopWasRequested } from '../lifecycle/stopRequest.js';
import { pidFilePath, type TabmuxPaths } from '../platform/paths.js';
import { isProcessAlive } from '../process/processes.js';

/** `stuck`: the process still runs, its connections closed, long after its own stop would have ended it. */
export type DaemonExit = 'stopped' | 'crashed' | 'stuck';

export interface ExitWatchOptions {
  /** How long a stop may take before `onSlow` is told (once); the watch goes on until `stuckAfterMs`. */
  slowAfterMs?: number;
  stuckAfterMs?: number;
  onSlow?: (waitedMs: number) => void;
  /** Ends the watch early (the watcher itself goes away): `stuck`, not meant to be used. */
  abandoned?: () => boolean;
}

/** A daemon that closed its connections and still runs after this long is said to be slow to stop. */
export const SLOW_STOP_MS = 20_000;
/**
 * ... and after this long, stuck: a daemon's own stop is bounded well within it (its Chrome gets 10 s to close before
 * it is killed, its workers and activity log less).
 */
export const STUCK_STOP_MS = 120_000;

/**
 * Tells a clean stop from a crash after a daemon's socket closed. A daemon that stops cleanly (`tabmux daemon stop`,
 * a signal, its idle time running out) removes its pid file before it exits; one that was killed or crashed leaves it
 * behind, unless the stop was asked of it (one that answered nothing, ended by its pid: see lifecycle/stopRequest.ts).
 * Nothing is decided while the process still runs, up to `stuckAfterMs`: a daemon closing its Chrome on a loaded
 * machine may take longer than usual, and reading that as a crash would show a crash that never happened, for good.
 * `onSlow` says when it takes long.
 */
export async function classifyDaemonExit(paths: TabmuxPaths, profile: string, pid: number, options: ExitWatchOptions = {}): Promise<DaemonExit> {
  const started = Date.now();
  const slowAfterMs = options.slowAfterMs ?? SLOW_STOP_MS;
  let toldSlow = false;
  for (;;) {
    const owner = await readDaemonPidFile(pidFilePath(paths, profile));
    if (owner?.pid !== pid) {
      return 'stopped';
    }
    if (!isProcessAlive(pid)) {
      return (await stopWasRequested(paths, profile, pid)) ? 'stopped' : 'crashed';
    }
    const waitedMs = Date.now() - started;
    if (options.abandoned?.() === true || waitedMs > (options.stuckAfterMs ?? STUCK_STOP_MS)) {
      return 'stuck';
    }
    if (!toldSlow && waitedMs > slowAfterMs) {
      toldSlow = true;
      options.onSlow?.(waitedMs);
    }
    await new Promise((resolve) => setTimeout(resolve, toldSlow ? 500 : 100));
  }
}
