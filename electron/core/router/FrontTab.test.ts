import { describe, expect, it } from 'vitest';
import { FrontTab } from './FrontTab.js';

describe('FrontTab', () => {
  it('runs one bring-then-work at a time, in order, and goes on after a failure', async () => {
    const front = new FrontTab();
    const steps: string[] = [];
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = front.run(
      () => Promise.resolve(steps.push('bring 1')),
      async () => {
        await gate;
        steps.push('work 1');
        throw new Error('capture failed');
      },
    );
    const second = front.run(
      () => Promise.resolve(steps.push('bring 2')),
      () => Promise.resolve(steps.push('work 2')),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(steps).toEqual(['bring 1']);
    release();
    await expect(first).rejects.toThrow('capture failed');
    await second;
    expect(steps).toEqual(['bring 1', 'work 1', 'bring 2', 'work 2']);
  });
});
