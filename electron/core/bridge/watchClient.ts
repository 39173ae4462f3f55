import type { Readable } from 'node:stream';
import { isProcessAlive } from '../process/processes.js';

export interface WatchClientOptions {
  stdin: Readable;
  /** The parent's pid at start; 0 or 1 (already orphaned, or run by init) turns the parent check off. */
  parentPid: number;
  /** Reads the current parent pid (process.ppid), which changes when the parent dies and we are re-parented. */
  currentParentPid: () => number;
  pollMs?: number;
}

/**
 * Calls `onGone` once when the MCP client is gone: its end of stdin closed, or the process that launched us died.
 * The parent check matters because a client that crashes does not always close the pipe (another process may hold
 * it), and a bridge left running would keep its session, and its tabs, forever. Returns a function that stops
 * watching.
 */
export function watchClient(options: WatchClientOptions, onGone: (reason: string) => void): () => void {
  let done = false;
  const gone = (reason: string): void => {
    if (!done) {
      done = true;
      stop();
      onGone(reason);
    }
  };
  const onEnd = (): void => gone('stdin closed');
  options.stdin.once('end', onEnd);
  options.stdin.once('close', onEnd);
  const { parentPid } = options;
  const timer =
    parentPid > 1
      ? setInterval(() => {
          if (options.currentParentPid() !== parentPid || !isProcessAlive(parentPid)) {
            gone(`parent process ${parentPid} exited`);
          }
        }, options.pollMs ?? 1_000)
      : undefined;
  timer?.unref();
  function stop(): void {
    options.stdin.off('end', onEnd);
    options.stdin.off('close', onEnd);
    clearInterval(timer);
  }
  return () => {
    done = true;
    stop();
  };
}
