import { beforeEach } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** What the test's daemons logged while it ran, at info level and above: kept only when the test failed. */
    daemonLog?: string[];
  }
}

/** The most lines one failed test carries; a test that logs more keeps its last ones. */
const KEPT_LINES = 60;

/** The daemons' lines since the running test began (every daemon of this file: a test may start its own). */
let lines: string[] = [];

/** Called by the test daemons' loggers with each line they write. */
export function recordDaemonLog(line: string): void {
  lines.push(line.trimEnd());
  if (lines.length > KEPT_LINES * 2) {
    lines = lines.slice(-KEPT_LINES);
  }
}

/**
 * The integration project's setup: a failed test carries what its daemons logged meanwhile in its report's meta, so
 * `npm test`'s summary can show why a daemon did what it did (a worker replaced, a session moved) beside the failure.
 */
export function keepDaemonLogOfFailedTests(): void {
  beforeEach(({ task, onTestFailed }) => {
    lines = [];
    onTestFailed(() => {
      task.meta.daemonLog = lines.slice(-KEPT_LINES);
    });
  });
}
