import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { watchClient } from './watchClient.js';

/** Collects the reasons `watchClient` reports, and lets a test wait for the next one. */
class Reasons {
  readonly list: string[] = [];
  #wake: ((reason: string) => void) | undefined;

  readonly onGone = (reason: string): void => {
    this.list.push(reason);
    this.#wake?.(reason);
  };

  next(): Promise<string> {
    return new Promise((resolve) => (this.#wake = resolve));
  }
}

describe('watchClient', () => {
  it('reports a closed stdin once', async () => {
    const stdin = new PassThrough();
    const seen = new Reasons();
    watchClient({ stdin, parentPid: 0, currentParentPid: () => 0 }, seen.onGone);
    const next = seen.next();
    stdin.end();
    stdin.resume();
    expect(await next).toBe('stdin closed');
    stdin.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.list).toEqual(['stdin closed']);
  });

  it('reports a parent process that exited', async () => {
    const parent = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = parent.pid ?? 0;
    const seen = new Reasons();
    watchClient({ stdin: new PassThrough(), parentPid: pid, currentParentPid: () => pid, pollMs: 20 }, seen.onGone);
    const next = seen.next();
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    expect(await next).toBe(`parent process ${pid} exited`);
  });

  it('reports being re-parented even if the old parent pid is alive again', async () => {
    let current = process.pid;
    const seen = new Reasons();
    watchClient({ stdin: new PassThrough(), parentPid: process.pid, currentParentPid: () => current, pollMs: 20 }, seen.onGone);
    const next = seen.next();
    current = 1;
    expect(await next).toBe(`parent process ${process.pid} exited`);
  });

  it('stays quiet after it is stopped', async () => {
    const stdin = new PassThrough();
    const seen = new Reasons();
    const stop = watchClient({ stdin, parentPid: process.pid, currentParentPid: () => 1, pollMs: 20 }, seen.onGone);
    stop();
    stdin.end();
    stdin.resume();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(seen.list).toEqual([]);
  });
});
