import type { ProfileState } from '../../../shared/model.js';
import type { ProfileView } from '../../../shared/supervisor.js';
import type { DaemonWatch } from './DaemonWatch.js';
import type { ProfileSource } from './profileSource.js';
import type { RestartPolicy } from './RestartPolicy.js';

/** What the supervisor knows of one profile. */
export interface Slot {
  name: string;
  /** From the profile's config, re-read on every scan. */
  kind: ProfileSource['kind'];
  endpoint: string | null;
  state: ProfileState;
  lastError: string | null;
  watch: DaemonWatch | null;
  /**
   * A daemon holds the profile but does not answer (its process is stopped or stuck): whether it stopped answering
   * while watched or already took the supervisor's connection without a word. `lastError` says so; Stop ends it.
   */
  unanswered: boolean;
  /** A look for the profile's daemon under way (see `Supervisor.#lookFor`). */
  looking: Promise<boolean> | null;
  /** Started by this supervisor: only those are restarted when they die. */
  ours: boolean;
  /** A start, stop or restart is under way; the poller leaves the profile alone meanwhile. */
  busy: boolean;
  readyAt: number | null;
  restartTimer: ReturnType<typeof setTimeout> | null;
  policy: RestartPolicy;
}

/** A profile just found: stopped, not watched, not started by this supervisor. */
export function newSlot(name: string, source: ProfileSource, policy: RestartPolicy): Slot {
  return { name, ...source, state: 'stopped', lastError: null, watch: null, unanswered: false, looking: null, ours: false, busy: false, readyAt: null, restartTimer: null, policy };
}

/** The profile as a UI sees it. */
export function view(slot: Slot): ProfileView {
  const watch = slot.watch;
  const { name, kind, endpoint, state, lastError, unanswered } = slot;
  return { name, kind, endpoint, state, lastError, unanswered, status: watch ? watch.status : null, tabs: watch ? watch.tabs : [] };
}
