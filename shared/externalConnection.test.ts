import { describe, expect, it } from 'vitest';
import { externalConnectionState } from './externalConnection.js';
import type { ExternalBrowserInfo } from './model.js';

function external(state: ExternalBrowserInfo['state']): ExternalBrowserInfo {
  return { kind: 'external', state, endpoint: 'http://127.0.0.1:9222', lastError: null, attempts: 0, nextRetryAt: null };
}

describe('externalConnectionState', () => {
  it('follows the daemon while there is no browser report', () => {
    expect(externalConnectionState('stopped', null)).toBe('disconnected');
    expect(externalConnectionState('starting', null)).toBe('connecting');
    expect(externalConnectionState('stopping', external('connected'))).toBe('disconnecting');
    expect(externalConnectionState('crashed', null)).toBe('failed');
    expect(externalConnectionState('restarting', null)).toBe('connecting');
  });

  it("follows the browser's own connection while the daemon runs", () => {
    expect(externalConnectionState('ready', external('connected'))).toBe('connected');
    expect(externalConnectionState('ready', external('pending'))).toBe('pending');
    expect(externalConnectionState('ready', external('connecting'))).toBe('connecting');
    // A lost browser turns the daemon degraded, which the supervisor shows as restarting.
    expect(externalConnectionState('restarting', external('disconnected'))).toBe('lost');
  });
});
