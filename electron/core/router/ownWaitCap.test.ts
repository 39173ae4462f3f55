import { describe, expect, it } from 'vitest';
import { capOwnWait } from './ownWaitCap.js';

describe('capOwnWait', () => {
  it('lowers a wait longer than the call may take, and says so', () => {
    const capped = capOwnWait('wait_for', { text: ['x'], timeout: 25_000 }, 3000);
    expect(capped.args).toEqual({ text: ['x'], timeout: 2000 });
    expect(capped.note).toContain('lowered from 25000 ms to 2000 ms');
  });

  it('leaves a wait that fits, and other tools, alone', () => {
    expect(capOwnWait('navigate_page', { url: 'https://a.test', timeout: 1000 }, 3000)).toEqual({ args: { url: 'https://a.test', timeout: 1000 } });
    expect(capOwnWait('click', { uid: 'u', timeout: 99_000 }, 3000)).toEqual({ args: { uid: 'u', timeout: 99_000 } });
  });

  it('sets a wait where upstream\'s default would outlast a short call limit, without a note', () => {
    expect(capOwnWait('new_page', { url: 'about:blank' }, 4000)).toEqual({ args: { url: 'about:blank', timeout: 3000 } });
    expect(capOwnWait('new_page', { url: 'about:blank', timeout: 0 }, 120_000)).toEqual({ args: { url: 'about:blank', timeout: 0 } });
  });
});
