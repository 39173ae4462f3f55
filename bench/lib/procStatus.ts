import { readFile } from 'node:fs/promises';

/** Resident memory of a process in KiB: all of it, and its anonymous and file-backed parts. */
export interface ResidentKib {
  rss: number;
  anon: number;
  file: number;
}

/** Resident sizes of a process from /proc/<pid>/status (Linux only; undefined elsewhere or when gone). */
export async function residentKib(pid: number): Promise<ResidentKib | undefined> {
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string): number | undefined => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
    return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 10);
  };
  const rss = field('VmRSS');
  return rss === undefined ? undefined : { rss, anon: field('RssAnon') ?? 0, file: field('RssFile') ?? 0 };
}

/** Resident set size of a process in KiB, from /proc/<pid>/status (Linux only; undefined elsewhere or when gone). */
export async function rssKib(pid: number): Promise<number | undefined> {
  return (await residentKib(pid))?.rss;
}
