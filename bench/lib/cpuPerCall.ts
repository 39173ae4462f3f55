import { readdir, readFile } from 'node:fs/promises';
import { summarize, type Summary } from './stats.js';

/**
 * CPU time a process has run so far, in nanoseconds, from the scheduler's own count of each of its threads
 * (/proc/<pid>/task/<tid>/schedstat: user and kernel time, to the nanosecond, where /proc/<pid>/stat counts 10 ms
 * ticks). `main` is the thread whose id is the pid (a Node process's event loop); undefined once the process is gone
 * or on a system without /proc.
 */
export interface ProcessCpu {
  main: number;
  all: number;
}

export async function processCpuNs(pid: number): Promise<ProcessCpu | undefined> {
  let threads: string[];
  try {
    threads = await readdir(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  // A thread that ended since the listing counts as none.
  const times = await Promise.all(
    threads.map((tid) =>
      readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').then(
        (text) => Number(text.split(' ')[0]),
        () => 0,
      ),
    ),
  );
  return { main: times[threads.indexOf(String(pid))] ?? 0, all: times.reduce((sum, ns) => sum + ns, 0) };
}

/**
 * What one process (or group of processes) used per call, in microseconds. `main`: its main threads (a Node
 * process's event loop, where a call's own work runs), call by call. `allMean`: all its threads, the mean over the
 * calls, since helper threads work in bursts (a collection every so many calls) that a median would leave out; a
 * mean also takes in whatever else the process did meanwhile.
 */
export interface CpuPerCallUs {
  main: Summary;
  allMean: number;
}

/**
 * The CPU each call of one side of a comparison costs the processes that serve only that side (a relay, a bridge, a
 * daemon of its own), read between one call's start and the next one's: what a process does after it answered (its
 * log, its timers, a collection) belongs to the call before. Each group of processes (a daemon's workers, say) is
 * summed into one series; a pid not known (undefined) counts as none. `wrap` gives the side's call with a reading before it; the first `skip` calls (the
 * warm-up) are left out of the series.
 */
export class CpuPerCall {
  readonly #groups: () => readonly (readonly (number | undefined)[])[];
  readonly #skip: number;
  #last: ProcessCpu[] | undefined;
  #calls = 0;
  readonly #all: number[][] = [];
  readonly #main: number[][] = [];

  constructor(groups: () => readonly (readonly (number | undefined)[])[], skip: number) {
    this.#groups = groups;
    this.#skip = skip;
  }

  wrap(call: () => Promise<number>): () => Promise<number> {
    return async () => {
      await this.#read();
      return call();
    };
  }

  /** Per group (in the order `groups` gives them), its CPU per call in µs. Reads once more, to close the last call. */
  async series(): Promise<CpuPerCallUs[]> {
    await this.#read();
    return this.#all.map((all, index) => ({ main: summarize(this.#main[index] ?? []), allMean: mean(all) }));
  }

  async #read(): Promise<void> {
    const now = await Promise.all(this.#groups().map((pids) => groupCpuNs(pids)));
    const last = this.#last;
    this.#last = now;
    this.#calls++;
    // The reading closes the call before it: the first reading closes none, the next `skip` close warm-up calls.
    if (last === undefined || this.#calls - 1 <= this.#skip) {
      return;
    }
    now.forEach((reading, index) => {
      const before = last[index] ?? reading;
      (this.#all[index] ??= []).push((reading.all - before.all) / 1000);
      (this.#main[index] ??= []).push((reading.main - before.main) / 1000);
    });
  }
}

async function groupCpuNs(pids: readonly (number | undefined)[]): Promise<ProcessCpu> {
  const readings = await Promise.all(pids.map((pid) => (pid === undefined ? Promise.resolve(undefined) : processCpuNs(pid))));
  return readings.reduce<ProcessCpu>((sum, reading) => ({ main: sum.main + (reading?.main ?? 0), all: sum.all + (reading?.all ?? 0) }), { main: 0, all: 0 });
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}
