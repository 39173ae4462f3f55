import { describe, expect, it } from 'vitest';
import { isSessionGone, TabmuxError } from './errors.js';

describe('session-gone codes', () => {
  it('are exactly the codes for a session that never existed, was closed or expired', () => {
    expect(['unknown_session', 'session_closed', 'session_expired'].every(isSessionGone)).toBe(true);
    for (const code of ['session_owned', 'session_paused', 'internal', undefined, null, 3]) {
      expect(isSessionGone(code)).toBe(false);
    }
  });

  it('read the code of an error as well as a code from result metadata', () => {
    expect(isSessionGone(new TabmuxError('session_expired', 'gone').code)).toBe(true);
    expect(isSessionGone(new TabmuxError('timeout', 'slow').code)).toBe(false);
  });
});
