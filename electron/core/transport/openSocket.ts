import { createConnection, type Socket } from 'node:net';
import { TabmuxError } from '../../../shared/errors.js';

/**
 * A daemon whose socket backlog is full (a flood of connections it has not accepted yet) makes `connect` fail with
 * EAGAIN at once. The daemon is there and will accept soon, so the connection is tried again, waiting a little
 * longer each time, for this long.
 */
export const BUSY_TIMEOUT_MS = 10_000;
const BUSY_RETRY_FIRST_MS = 5;
const BUSY_RETRY_MAX_MS = 200;

/** Connects to the socket, trying a busy one again (see BUSY_TIMEOUT_MS); any other failure is `daemon_not_running`. */
export async function openSocket(path: string, busyTimeoutMs: number): Promise<Socket> {
  const deadline = Date.now() + busyTimeoutMs;
  for (let delay = BUSY_RETRY_FIRST_MS; ; delay = Math.min(delay * 2, BUSY_RETRY_MAX_MS)) {
    try {
      return await connectOnce(path);
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'EAGAIN')) {
        throw new TabmuxError('daemon_not_running', `no daemon answers on ${path} (${describe(error)}); start it with: tabmux daemon start`, { cause: error });
      }
      if (Date.now() >= deadline) {
        throw new TabmuxError(
          'daemon_busy',
          `the daemon on ${path} runs but did not take this connection within ${busyTimeoutMs / 1000} s (its socket stayed busy: too many connections at once, or the daemon is stalled); try again shortly, or check it with: tabmux daemon status`,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - Date.now()))));
    }
  }
}

function connectOnce(path: string): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const candidate = createConnection({ path });
    candidate.once('connect', () => {
      candidate.off('error', reject);
      resolve(candidate);
    });
    candidate.once('error', (error) => {
      candidate.destroy();
      reject(error);
    });
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
