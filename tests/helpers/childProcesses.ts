import { readdirSync, readFileSync } from 'node:fs';

/**
 * Processes this test process started (Linux, from /proc) that still run and whose command line `matches`. A zombie
 * does not count: it has exited, and only its parent has not collected it yet.
 */
export function runningChildren(matches: (commandLine: string) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number.parseInt(parent ?? '', 10) === process.pid && state !== 'Z' && matches(readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) {
        found.push(Number.parseInt(entry, 10));
      }
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
