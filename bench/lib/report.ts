import { centre, goalText, verdictOf, type Row } from './Row.js';
import type { Summary } from './stats.js';

function number(value: number): string {
  if (!Number.isFinite(value)) {
    return 'n/a';
  }
  const abs = Math.abs(value);
  return abs >= 100 ? value.toFixed(0) : abs >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function measure(value: Summary | number | null, unit: string): string {
  if (value === null) {
    return '—';
  }
  if (typeof value === 'number') {
    return `${number(value)} ${unit}`;
  }
  // Single samples have no spread worth printing.
  return value.n > 1 ? `${number(value.median)} ${unit} (p90 ${number(value.p90)}, n=${value.n})` : `${number(value.median)} ${unit}`;
}

function cells(row: Row): string[] {
  return [
    row.name,
    measure(row.figure, row.unit),
    measure(row.baseline, row.unit),
    row.ratio === null ? '—' : `${number(row.ratio)}×`,
    goalText(row.goal, row.unit),
    verdictOf(row),
  ];
}

const HEADER = ['row', 'figure (median)', 'baseline (median)', 'ratio', 'goal', 'result'];

/** Fixed-width table for the terminal. */
export function textTable(rows: readonly Row[]): string {
  const body = rows.map(cells);
  const widths = HEADER.map((title, column) => Math.max(title.length, ...body.map((line) => (line[column] ?? '').length)));
  const format = (line: readonly string[]): string => line.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
  return [format(HEADER), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(format)].join('\n');
}

export function markdownTable(rows: readonly Row[]): string {
  const escape = (cell: string): string => cell.replaceAll('|', '\\|');
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map(() => '---').join('|')}|`];
  for (const row of rows) {
    lines.push(`| ${cells(row).map(escape).join(' | ')} |`);
  }
  return lines.join('\n');
}

export function notesList(rows: readonly Row[]): string {
  return rows.map((row) => `- **${row.name}**: ${row.note}`).join('\n');
}

/** The ratio of two medians, guarded against an empty or zero baseline. */
export function ratio(figure: Summary | number, baseline: Summary | number): number {
  const base = centre(baseline);
  return base === 0 ? Number.NaN : centre(figure) / base;
}

/** For every missed goal, why it is out of reach, with figures from the same run (rows that carry no reason are named alone). */
export function missesList(rows: readonly Row[]): string {
  const missed = rows.filter((row) => verdictOf(row) === 'MISS');
  return missed.length === 0 ? 'Every goal was met.' : missed.map((row) => `- **${row.name}**: ${row.why ?? 'no reason recorded'}`).join('\n');
}
