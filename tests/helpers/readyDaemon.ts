import { socketPath, type TabmuxPaths } from '../../electron/core/platform/paths.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { waitFor } from './waitFor.js';

/** A connection to the profile's daemon once it reports itself ready, for a daemon a test started as a process. */
export function readyDaemon(paths: TabmuxPaths, profile = 'default', timeoutMs = 30_000): Promise<DaemonClient> {
  return waitFor(
    async () => {
      const candidate = await DaemonClient.connect(socketPath(paths, profile)).catch(() => undefined);
      if (candidate && (await candidate.call('tabmux/status')).state === 'ready') {
        return candidate;
      }
      candidate?.close();
      return undefined;
    },
    'the daemon to be ready',
    timeoutMs,
  );
}
