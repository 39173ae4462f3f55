import { TabmuxError } from '../../shared/errors.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: an ISO date or time (`2026-11-23T10:00:00Z`), or a time back from now (`90s`, `10m`, `2h`, `7d`). */
export function parseSince(value: string, now = Date.now()): number {
  const relative = /^(\d+)([smhd])$/.exec(value.trim());
  if (relative?.[1] !== undefined && relative[2] !== undefined) {
    return now - Number(relative[1]) * (UNITS[relative[2]] ?? 0);
  }
  const absolute = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(absolute)) {
    throw new TabmuxError('invalid_params', `--since ${JSON.stringify(value)} is neither an ISO time (2026-11-23T10:00:00Z) nor a duration back from now (90s, 10m, 2h, 7d)`);
  }
  return absolute;
}
