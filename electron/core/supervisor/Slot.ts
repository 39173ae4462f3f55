import type { ProfileState } from '../../../shared/model.js';
import type { ProfileView } from '../../../shared/supervisor.js';
import type { DaemonWatch } from './DaemonWatch.js';
import type { ProfileSource } from './profileSource.js';
import type { RestartPolicy } from './RestartPolicy.js';

/** One profile as the supervisor keeps it: its lifecycle state, its daemon connection, and its restart bookkeeping. */
export interface Slot {
  name: string;
  /** From the profile's config, re-read on every scan. */
  kind: ProfileSource['kind'];
  endpoint: string | null;
  state: ProfileState;
  lastError: string | null;
  watch: DaemonWatch | null;
  /** Started by this supervisor: only those are restarted when they die. */
  ours: boolean;
  /** A start, stop or restart is under way; the poller leaves the profile alone meanwhile. */
  busy: boolean;
  readyAt: number | null;
  restartTimer: ReturnType<typeof setTimeout> | null;
  policy: RestartPolicy;
}

/** What a UI sees of a profile. */
export function view(slot: Slot): ProfileView {
  const watch = slot.watch;
  const { name, kind, endpoint, state, lastError } = slot;
  return { name, kind, endpoint, state, lastError, status: watch ? watch.status : null, tabs: watch ? watch.tabs : [] };
}
