import { describe, expect, it } from 'vitest';
import { externalConnectionFacts, lifetimeFact, profileBadge, profileVerbs } from './profileStatus.js';
import { profileEntryOf } from './ServerState.js';
import { EXTERNAL_ENDPOINT, externalView, makeView, stoppedView } from './testData.js';

describe('profileBadge', () => {
  it("shows a launched profile's daemon state", () => {
    expect(profileBadge(profileEntryOf(makeView('work')))).toMatchObject({ state: 'ready', label: 'ready', tone: 'ok' });
    expect(profileBadge(profileEntryOf(stoppedView('work')))).toMatchObject({ state: 'stopped', label: 'stopped', tone: 'idle' });
    const crashed = profileEntryOf(makeView('work', { state: 'crashed', lastError: 'Chrome would not start', status: null }));
    expect(profileBadge(crashed)).toMatchObject({ label: 'crashed', tone: 'error', title: 'Chrome would not start' });
  });

  it('says connected or disconnected for an external profile, never running or stopped', () => {
    expect(profileBadge(profileEntryOf(externalView('mine', 'stopped', null)))).toMatchObject({ state: 'disconnected', label: 'disconnected', tone: 'idle' });
    expect(profileBadge(profileEntryOf(externalView('mine', 'starting', null)))).toMatchObject({ state: 'connecting', label: 'connecting', tone: 'progress' });
    expect(profileBadge(profileEntryOf(externalView('mine', 'ready', { state: 'connected' })))).toMatchObject({ state: 'connected', label: 'connected', tone: 'ok' });
    expect(profileBadge(profileEntryOf(externalView('mine', 'ready', { state: 'pending' })))).toMatchObject({ state: 'pending', label: 'pending', tone: 'pending' });
    expect(profileBadge(profileEntryOf(externalView('mine', 'stopping', { state: 'connected' })))).toMatchObject({ label: 'disconnecting' });
  });

  it('explains a lost browser with its own error and a failed connect with the start error', () => {
    const lost = profileEntryOf(externalView('mine', 'restarting', { state: 'disconnected', lastError: 'the browser went away' }));
    expect(profileBadge(lost)).toEqual({ state: 'lost', label: 'disconnected', tone: 'warn', title: 'the browser went away' });
    const failed = { ...profileEntryOf(externalView('mine', 'crashed', null)), lastError: 'the browser is not reachable' };
    expect(profileBadge(failed)).toEqual({ state: 'failed', label: 'failed', tone: 'error', title: 'the browser is not reachable' });
  });
});

describe('profileBadge for a daemon that does not answer', () => {
  it('says so over whatever state was last known, launched or external, with the reason as its title', () => {
    const error = 'the daemon (pid 42) does not answer: its process is stopped or stuck; Stop ends it';
    for (const view of [makeView('work'), stoppedView('work'), externalView('mine', 'ready', { state: 'connected' })]) {
      const entry = profileEntryOf({ ...view, unanswered: true, lastError: error });
      expect(profileBadge(entry)).toEqual({ state: 'unanswered', label: 'not answering', tone: 'error', title: error });
    }
  });
});

describe('profileBadge for a browser that does not answer', () => {
  it('says so on a running profile, launched or external, and nothing once it answers or the daemon is not ready', () => {
    const since = Date.UTC(2026, 0, 2, 3, 4, 5);
    const launched = makeView('work');
    const external = externalView('mine', 'ready', { state: 'connected' });
    for (const view of [launched, external]) {
      const silent = profileEntryOf({ ...view, status: view.status && { ...view.status, browserSilentSince: since } });
      expect(profileBadge(silent)).toMatchObject({ state: 'browser-silent', label: 'browser not answering', tone: 'error' });
      expect(profileBadge(silent).title).toContain('every call on this profile waits on it');
    }
    const answering = profileEntryOf({ ...launched, status: launched.status && { ...launched.status, browserSilentSince: null } });
    expect(profileBadge(answering)).toMatchObject({ state: 'ready', label: 'ready' });
    const stopping = profileEntryOf({ ...launched, state: 'stopping', status: launched.status && { ...launched.status, browserSilentSince: since } });
    expect(profileBadge(stopping)).toMatchObject({ state: 'stopping' });
  });
});

describe('profileVerbs', () => {
  it('connects and disconnects an external profile, starts and stops a launched one', () => {
    const external = profileVerbs({ kind: 'external', endpoint: EXTERNAL_ENDPOINT });
    expect([external.start, external.stop, external.restart]).toEqual(['Connect', 'Disconnect', 'Reconnect']);
    expect(external.startTitle).toContain(EXTERNAL_ENDPOINT);
    expect(external.stopTitle).toMatch(/browser .* stay open/);
    const launched = profileVerbs({ kind: 'launched', endpoint: null });
    expect([launched.start, launched.stop, launched.restart]).toEqual(['Start', 'Stop', 'Restart']);
  });
});

describe('externalConnectionFacts', () => {
  it('is null for a launched profile', () => {
    expect(externalConnectionFacts(profileEntryOf(makeView('work')), 0)).toBeNull();
  });

  it('shows the endpoint from the config while no daemon runs', () => {
    expect(externalConnectionFacts(profileEntryOf(externalView('mine', 'stopped', null)), 0)).toEqual({
      endpoint: EXTERNAL_ENDPOINT,
      attempts: 0,
      lastError: null,
      retryInMs: null,
    });
  });

  it('counts down to the next retry and never below zero', () => {
    const entry = profileEntryOf(externalView('mine', 'restarting', { state: 'disconnected', attempts: 3, nextRetryAt: 10_000, lastError: 'refused' }));
    expect(externalConnectionFacts(entry, 4_000)).toEqual({ endpoint: EXTERNAL_ENDPOINT, attempts: 3, lastError: 'refused', retryInMs: 6_000 });
    expect(externalConnectionFacts(entry, 12_000)?.retryInMs).toBe(0);
  });
});

describe('lifetimeFact', () => {
  it('says whether a daemon runs until stopped or stops when idle, and how long', () => {
    expect(lifetimeFact(undefined)).toBeNull();
    expect(lifetimeFact({ startedBy: 'daemon-start', idleExitMs: null, idleSince: null })?.value).toBe('when stopped');
    expect(lifetimeFact({ startedBy: 'demand', idleExitMs: 15 * 60_000, idleSince: null })?.value).toBe('after 15 min idle');
    expect(lifetimeFact({ startedBy: 'demand', idleExitMs: 2 * 3_600_000, idleSince: 5 })?.value).toBe('after 2 h idle');
    expect(lifetimeFact({ startedBy: 'demand', idleExitMs: 90_000, idleSince: null })?.value).toBe('after 90 s idle');
  });
});
