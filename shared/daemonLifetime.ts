import type { DaemonLifetime, DaemonStartedBy } from './model.js';

const STARTED_BY: Record<DaemonStartedBy, string> = {
  demand: 'started on demand',
  'daemon-start': 'started by daemon start',
  app: 'started by the tray or dashboard',
  'daemon-run': 'started by daemon run',
};

/** "15 min", "90 s", "1500 ms": a duration as a person reads it. */
export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) {
    return `${ms / 60_000} min`;
  }
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * How long a daemon runs, in words: "started on demand, exits after 15 min idle" or "started by daemon start, stays
 * until stopped".
 */
export function describeLifetime(lifetime: DaemonLifetime): string {
  const until = lifetime.idleExitMs === null ? 'stays until stopped' : `exits after ${formatDuration(lifetime.idleExitMs)} idle`;
  return `${STARTED_BY[lifetime.startedBy]}, ${until}`;
}
