import { describe, expect, it } from 'vitest';
import { TabmuxError } from './errors.js';
import { outcomeOf } from './outcomeOf.js';

describe('outcomeOf', () => {
  it('tells answers, refusals, cancels, timeouts and crashes apart', () => {
    expect(outcomeOf({ content: [] }, undefined)).toBe('ok');
    expect(outcomeOf({ content: [], isError: true }, undefined)).toBe('tool_error');
    expect(outcomeOf(undefined, new TabmuxError('stale_token', 'old'))).toBe('rejected');
    expect(outcomeOf(undefined, new TabmuxError('url_denied', 'no'))).toBe('rejected');
    expect(outcomeOf(undefined, new TabmuxError('cancelled', 'c'))).toBe('cancelled');
    expect(outcomeOf(undefined, new TabmuxError('daemon_stopping', 'cut off by a stop'))).toBe('cancelled');
    expect(outcomeOf(undefined, new TabmuxError('daemon_restarting', 'kept from running by a restart'))).toBe('cancelled');
    expect(outcomeOf(undefined, new TabmuxError('timeout', 't'))).toBe('timed_out');
    expect(outcomeOf(undefined, new TabmuxError('upstream_unavailable', 'exited'))).toBe('worker_crashed');
    expect(outcomeOf(undefined, new TabmuxError('internal', 'bug'))).toBe('failed');
  });
});
