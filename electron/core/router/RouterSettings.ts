import { totalmem } from 'node:os';

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
  /** How long an agent's `ask_human` waits for a person before it fails. */
  questionTimeoutMs: number;
  /** How long a call a confirm policy holds waits for a person's approval before it is denied. */
  confirmTimeoutMs: number;
  /**
   * How long a call may wait on a page that answers nothing (a script that never yields) before that script is ended
   * and the call goes on (see `StuckPageWatch`); 0 leaves such a page to the call's time limit.
   */
  stuckPageMs: number;
  /**
   * An upstream worker's resident memory past which its sessions move apart and it is replaced (see
   * `WorkerMemoryWatch`), in MiB; 0: never.
   */
  workerMemoryMb: number;
  /** The most bytes one session's folder may hold before tools that write files into it are refused; 0: no limit. */
  sessionFilesMaxBytes: number;
}

/** What one upstream worker (a chrome-devtools-mcp process) costs in memory, measured: about 150 MiB. */
const WORKER_MIB = 150;

/** The most workers a profile runs (one per active session up to this), as the profile settings allow. */
export const MAX_WORKERS = 16;

/**
 * How many workers a profile may run by default: an eighth of the machine's memory at ~150 MiB each, from 2 up to
 * 16 (about 20 on a 24 GiB machine, so 16; 6 on 8 GiB). Workers start as sessions need them and idle ones stop, so
 * the budget is a ceiling, not a cost.
 */
export function defaultWorkerBudget(totalMemoryBytes: number): number {
  return Math.min(MAX_WORKERS, Math.max(2, Math.floor(totalMemoryBytes / 8 / (WORKER_MIB * 1024 * 1024))));
}

export const DEFAULT_SETTINGS: RouterSettings = {
  workers: defaultWorkerBudget(totalmem()),
  isolation: 'tab',
  workerIdleMs: 5 * 60_000,
  sessionTtlMs: 30 * 60_000,
  reapIntervalMs: 60_000,
  callTimeoutMs: 120_000,
  // Audits and traces legitimately run for minutes.
  questionTimeoutMs: 10 * 60_000,
  confirmTimeoutMs: 10 * 60_000,
  // Chrome offers to end an unresponsive page's script after about as long.
  stuckPageMs: 15_000,
  // A worker runs at ~150-250 MiB; V8 ends one at about 4 GiB. Audits and traces stay well below this.
  workerMemoryMb: 2048,
  sessionFilesMaxBytes: 1024 * 1024 * 1024,
  toolTimeoutsMs: { lighthouse_audit: 300_000, performance_start_trace: 300_000, performance_stop_trace: 300_000 },
};
