import type { Summary } from './stats.js';

/**
 * How a ratio is judged. `max`: the figure may be at most `limit` times the baseline (overheads); `min`: at least
 * `limit` times (speed-ups); `under`: the figure itself at most `limit`, in the row's unit (an absolute budget such as
 * an attach time); `info`: reported without a goal.
 */
export type Goal = { kind: 'max'; limit: number } | { kind: 'min'; limit: number } | { kind: 'under'; limit: number } | { kind: 'info' };

/** One line of the results table. Ratio is figure / baseline, or baseline / figure for speed-ups (see `ratioOf`). */
export interface Row {
  name: string;
  figure: Summary | number;
  baseline: Summary | number | null;
  unit: string;
  ratio: number | null;
  goal: Goal;
  /** What the two sides were, so a reader can tell exactly what was compared. */
  note: string;
  /** Why the goal is out of reach when it is missed, with figures from the same run; shown only for a miss. */
  why?: string;
}

export type Verdict = 'PASS' | 'MISS' | 'info';

export function verdictOf(row: Row): Verdict {
  if (row.goal.kind === 'under') {
    return centre(row.figure) <= row.goal.limit ? 'PASS' : 'MISS';
  }
  if (row.goal.kind === 'info' || row.ratio === null || Number.isNaN(row.ratio)) {
    return 'info';
  }
  return row.goal.kind === 'max' ? (row.ratio <= row.goal.limit ? 'PASS' : 'MISS') : row.ratio >= row.goal.limit ? 'PASS' : 'MISS';
}

export function goalText(goal: Goal, unit = ''): string {
  if (goal.kind === 'under') {
    return `≤ ${goal.limit} ${unit}`.trimEnd();
  }
  return goal.kind === 'info' ? '—' : `${goal.kind === 'max' ? '≤' : '≥'} ${goal.limit.toFixed(2)}×`;
}

export function centre(value: Summary | number): number {
  return typeof value === 'number' ? value : value.median;
}
