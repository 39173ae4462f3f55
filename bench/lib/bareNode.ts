import { execFile } from 'node:child_process';
import { summarize, type Summary } from './stats.js';

/** A Node process that starts and exits at once, timed from spawn to exit: the least any extra process costs. */
function bareNodeOnce(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', '0'], (error) => (error ? reject(new Error(`node -e 0 failed: ${error.message}`)) : resolve(performance.now() - t0)));
  });
}

export async function bareNodeStart(samples: number): Promise<Summary> {
  const times: number[] = [];
  for (let index = 0; index < samples; index++) {
    times.push(await bareNodeOnce());
  }
  return summarize(times);
}
