import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../platform/Logger.js';
import type { DaemonWatch } from './DaemonWatch.js';
import { withDeadline } from '../../../shared/withDeadline.js';

/** How long a dashboard waits for each daemon to take its address before it prints its link anyway. */
const ANNOUNCE_TIMEOUT_MS = 5_000;

/**
 * Asks every watched daemon to read the dashboards' records again (see `Supervisor.announceDashboards`); resolves
 * once each answered or took too long. A daemon that fails is logged, never thrown.
 */
export async function refreshDashboards(watches: readonly DaemonWatch[], logger: Logger): Promise<void> {
  await Promise.all(
    watches.map(async (watch) => {
      try {
        await withDeadline(watch.client.request('tabmux/dashboards.refresh', {}), ANNOUNCE_TIMEOUT_MS, undefined);
      } catch (error) {
        logger.warn(`profile ${watch.status.profile} did not take the dashboards' addresses: ${TabmuxError.from(error).message}`);
      }
    }),
  );
}
