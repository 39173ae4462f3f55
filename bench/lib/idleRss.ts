import { spawn } from 'node:child_process';
import { packageRoot } from '../../electron/core/platform/version.js';
import { residentKib } from './procStatus.js';
import { summarize } from './stats.js';

const READINGS = 5;

/** Resident sizes in MiB. */
export interface ResidentMiB {
  rss: number;
  anon: number;
  file: number;
}

/**
 * Resident size of a bare Node process (an ES module that only keeps itself alive), read as the daemon's is: the
 * floor to set the daemon's own figure against on the same machine, in the same run.
 */
export async function idleNodeResident(): Promise<ResidentMiB> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', "process.stdout.write('ready\\n'); setInterval(() => {}, 1000);"], {
    cwd: packageRoot(),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`idle Node process exited with code ${String(code)}`)));
    });
    const readings: ResidentMiB[] = [];
    for (let index = 0; index < READINGS; index++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const kib = child.pid === undefined ? undefined : await residentKib(child.pid);
      if (kib !== undefined) {
        readings.push({ rss: kib.rss / 1024, anon: kib.anon / 1024, file: kib.file / 1024 });
      }
    }
    const middle = (pick: (reading: ResidentMiB) => number): number => summarize(readings.map(pick)).median;
    return { rss: middle((r) => r.rss), anon: middle((r) => r.anon), file: middle((r) => r.file) };
  } finally {
    child.kill();
  }
}
