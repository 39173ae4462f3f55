/** Where a session's pages open: tabs wherever Chrome puts them, or a window of the session's own. */
export type Isolation = 'tab' | 'window';

export interface RouterSettings {
  workers: number;
  isolation: Isolation;
  sessionTtlMs: number;
  reapIntervalMs: number;
  callTimeoutMs: number;
  /** How long an extra worker (not the first) may have no sessions before it is stopped. */
  workerIdleMs: number;
  /** Per-tool timeouts that override callTimeoutMs. */
  toolTimeoutsMs: Readonly<Record<string, number>>;
}

export const DEFAULT_SETTINGS: RouterSettings = {
  workers: 4,
  isolation: 'tab',
  workerIdleMs: 5 * 60_000,
  sessionTtlMs: 30 * 60_000,
  reapIntervalMs: 60_000,
  callTimeoutMs: 120_000,
  // Audits and traces legitimately run for minutes.
  toolTimeoutsMs: { lighthouse_audit: 300_000, performance_start_trace: 300_000, performance_stop_trace: 300_000 },
};
