import { afterEach, describe, expect, it, vi } from 'vitest';
import { withDeadline } from './withDeadline.js';

describe('withDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives the work its own value when it comes first, and clears its timer', async () => {
    vi.useFakeTimers();
    await expect(withDeadline(Promise.resolve('done'), 1000, 'late')).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives the late value once the time has passed without the work', async () => {
    vi.useFakeTimers();
    const waiting = withDeadline(new Promise<string>(() => undefined), 1000, 'late');
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void waiting.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(waiting).resolves.toBe('late');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the work when it fails first, and clears its timer', async () => {
    vi.useFakeTimers();
    await expect(withDeadline(Promise.reject(new Error('broken')), 1000, 'late')).rejects.toThrow('broken');
    expect(vi.getTimerCount()).toBe(0);
  });
});
