import { readFile } from 'node:fs/promises';

/** Resident set size of a process in KiB, from /proc/<pid>/status (Linux only; undefined elsewhere or when gone). */
export async function rssKib(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 10);
  } catch {
    return undefined;
  }
}
