import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../router/RouterSettings.js';
import { routerSettings } from './daemonSettings.js';

describe('routerSettings', () => {
  it('takes the environment over the profile over the default, for a setting 0 turns off', () => {
    expect(routerSettings({}, {}).stuckPageMs).toBe(DEFAULT_SETTINGS.stuckPageMs);
    expect(routerSettings({ stuckPageMs: 5000 }, {}).stuckPageMs).toBe(5000);
    expect(routerSettings({ stuckPageMs: 5000 }, { TABMUX_STUCK_PAGE_MS: '0' }).stuckPageMs).toBe(0);
    expect(routerSettings({ stuckPageMs: 0 }, {}).stuckPageMs).toBe(0);
    // Not a whole number of zero or more: the environment is ignored, not taken as 0.
    for (const bad of ['', '-1', '1.5', 'soon']) {
      expect(routerSettings({ stuckPageMs: 5000 }, { TABMUX_STUCK_PAGE_MS: bad }).stuckPageMs).toBe(5000);
    }
  });

  it('keeps a positive setting positive: 0 in the environment leaves the call limit as configured', () => {
    expect(routerSettings({ callTimeoutMs: 9000 }, { TABMUX_CALL_TIMEOUT_MS: '0' }).callTimeoutMs).toBe(9000);
  });
});
