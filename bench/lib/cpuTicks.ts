import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc/<pid>/stat times: USER_HZ, 100 on every Linux build the bench runs on. */
export const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  ticks: number;
}

/** One process's parent and CPU time (utime + stime) from /proc/<pid>/stat; undefined once it is gone. */
async function procStat(pid: number): Promise<ProcStat | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces or parentheses itself: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return { pid, ppid, ticks: utime + stime };
  } catch {
    return undefined;
  }
}

/** CPU ticks used so far by one process (Linux only; 0 elsewhere or once it is gone). */
export async function processTicks(pid: number): Promise<number> {
  return (await procStat(pid))?.ticks ?? 0;
}

/** CPU ticks used so far by a process and all its descendants that still run (Chrome's renderers, GPU, utility). */
export async function treeTicks(rootPid: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return 0;
  }
  const stats = (await Promise.all(names.filter((name) => /^\d+$/.test(name)).map((name) => procStat(Number(name))))).filter((stat): stat is ProcStat => stat !== undefined);
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) {
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  }
  let total = stats.find((stat) => stat.pid === rootPid)?.ticks ?? 0;
  const stack = [rootPid];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    for (const child of children.get(pid) ?? []) {
      total += child.ticks;
      stack.push(child.pid);
    }
  }
  return total;
}
