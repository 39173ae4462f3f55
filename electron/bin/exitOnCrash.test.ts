import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Logger } from '../core/platform/Logger.js';
import { exitOnCrash } from './exitOnCrash.js';

function setUp(stop: () => Promise<void>) {
  const source = new EventEmitter();
  const lines: string[] = [];
  const exit = vi.fn<(code: number) => void>();
  const stopSpy = vi.fn(stop);
  exitOnCrash(source, { logger: new Logger('daemon:test', (line) => lines.push(line), 'debug'), stop: stopSpy, deadlineMs: 10_000, exit });
  return { source, lines, exit, stop: stopSpy };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('exitOnCrash', () => {
  it('logs an uncaught exception with its stack, stops, then exits with 1', async () => {
    const { source, lines, exit, stop } = setUp(() => Promise.resolve());
    source.emit('uncaughtException', new Error('boom'));
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(1));
    expect(stop).toHaveBeenCalledTimes(1);
    expect(lines[0]).toMatch(/ERROR \[daemon:test\] uncaught exception: Error: boom\n\s+at /);
  });

  it('logs an unhandled rejection that is not an Error', async () => {
    const { source, lines, exit } = setUp(() => Promise.resolve());
    source.emit('unhandledRejection', 'a plain string');
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(1));
    expect(lines[0]).toMatch(/unhandled promise rejection: a plain string/);
  });

  it('stops once when crashes pile up, and logs every one', async () => {
    let finish: () => void = () => undefined;
    const { source, lines, exit, stop } = setUp(() => new Promise<void>((resolve) => (finish = resolve)));
    source.emit('uncaughtException', new Error('first'));
    source.emit('unhandledRejection', new Error('second'));
    expect(stop).toHaveBeenCalledTimes(1);
    expect(lines.join('')).toMatch(/first[\s\S]*second/);
    expect(exit).not.toHaveBeenCalled();
    finish();
    await vi.waitFor(() => expect(exit).toHaveBeenCalledTimes(1));
  });

  it('exits at the deadline when stopping hangs', async () => {
    vi.useFakeTimers();
    const { source, lines, exit } = setUp(() => new Promise<void>(() => undefined));
    source.emit('uncaughtException', new Error('boom'));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exit).toHaveBeenCalledWith(1);
    expect(lines.at(-1)).toMatch(/did not stop within 10000 ms/);
  });

  it('still exits when stopping fails', async () => {
    const { source, lines, exit } = setUp(() => Promise.reject(new Error('socket already gone')));
    source.emit('uncaughtException', new Error('boom'));
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(1));
    expect(lines.join('')).toMatch(/stopping failed: Error: socket already gone/);
  });
});
