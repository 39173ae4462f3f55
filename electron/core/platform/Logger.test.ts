import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isoTimestamp, Logger, streamSink } from './Logger.js';

/** A stream whose every write fails the way a closed pipe does: with an error event on a later tick. */
class ClosedPipe extends EventEmitter {
  writes = 0;

  write(): boolean {
    this.writes++;
    process.nextTick(() => this.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })));
    return false;
  }
}

describe('a log written to a stream', () => {
  it('stops at the first failed write, and its errors are heard, so none is left uncaught', async () => {
    const pipe = new ClosedPipe();
    const logger = new Logger('test', streamSink(pipe), 'info');
    logger.info('one');
    logger.info('two, written before the first failure is known');
    await new Promise((resolve) => setImmediate(resolve));
    logger.info('three');
    logger.error('four');
    await new Promise((resolve) => setImmediate(resolve));
    expect(pipe.writes).toBe(2);
    expect(pipe.listenerCount('error')).toBe(1);
  });

  it('is one sink per stream, however many loggers write to it', () => {
    const pipe = new ClosedPipe();
    expect(streamSink(pipe)).toBe(streamSink(pipe));
    expect(pipe.listenerCount('error')).toBe(1);
  });
});

describe('a log line', () => {
  it('shows terminal controls in its message as escapes', () => {
    const lines: string[] = [];
    new Logger('bridge', (line) => lines.push(line), 'info').info('session sess-1 created (\u001b]0;owned\u0007\u009b2J\u202e)\nnext');
    expect(lines[0]).toMatch(/ INFO \[bridge\] session sess-1 created \(\\u001b\]0;owned\\u0007\\u009b2J\\u202e\)\nnext\n$/);
  });
});

describe('isoTimestamp', () => {
  it('writes what toISOString writes', () => {
    const times = [0, 1, 9, 10, 99, 100, 999, 59_999, 951_782_400_000, 1_709_251_199_999, 1_764_000_000_123, 4_102_444_799_999, Date.now()];
    for (const ms of times) {
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
    // Across leap years, month ends and every field's carry, 1970 to 2100.
    for (let step = 0; step < 5000; step++) {
      const ms = Math.floor(Math.random() * 4_102_444_800_000);
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
