import { describe, expect, it } from 'vitest';
import { isSessionGone, TabmuxError } from '../../../shared/errors.js';
import { SessionRegistry } from './SessionRegistry.js';

const TTL = 60_000;

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof TabmuxError ? error.code : 'not a TabmuxError';
  }
  return undefined;
}

describe('SessionRegistry', () => {
  it('creates sessions with fresh ids and distinct token prefixes', () => {
    const registry = new SessionRegistry(TTL);
    const a = registry.add('a', 0);
    const b = registry.add(null, 1);
    expect(a.id).toMatch(/^sess-[0-9a-f]{16}$/);
    expect(a.id).not.toBe(b.id);
    expect(a.short).toBe(a.id.slice(5, 13));
    expect(b.worker).toBe(1);
    expect(registry.all()).toEqual([a, b]);
    expect(registry.onWorker(1)).toEqual([b]);
  });

  it('lengthens the token prefix when another live session already has it', () => {
    const registry = new SessionRegistry(TTL);
    const a = registry.add(null, 0, 'sess-00000000aaaa1111');
    const b = registry.add(null, 0, 'sess-00000000aaaa2222');
    expect(a.short).toBe('00000000');
    expect(b.short).toBe('00000000a');
    // Ids without enough hex digits (agents name their own sessions) still get a usable prefix.
    expect(registry.add(null, 0, 'agent-x').short).toMatch(/^[0-9a-f]{8,}$/);
  });

  it('says why a session is gone: unknown, closed or expired', () => {
    const registry = new SessionRegistry(TTL);
    const closed = registry.add(null, 0);
    const expired = registry.add(null, 0);
    registry.remove(closed.id, 'closed');
    registry.remove(expired.id, 'expired');
    expect(codeOf(() => registry.get('sess-nope'))).toBe('unknown_session');
    expect(codeOf(() => registry.get(closed.id))).toBe('session_closed');
    expect(codeOf(() => registry.get(expired.id))).toBe('session_expired');
    expect([codeOf(() => registry.get('sess-nope')), codeOf(() => registry.get(closed.id))].every(isSessionGone)).toBe(true);
    expect(registry.find(closed.id)).toBeUndefined();
    // A session created again under a remembered id is live again.
    registry.add(null, 0, closed.id);
    expect(registry.get(closed.id).id).toBe(closed.id);
  });

  it('says how long an expired session was idle in seconds under a minute, in minutes above', () => {
    const message = (ttl: number) => {
      const registry = new SessionRegistry(ttl);
      const session = registry.add(null, 0);
      registry.remove(session.id, 'expired');
      try {
        registry.get(session.id);
      } catch (error) {
        return error instanceof Error ? error.message : '';
      }
      return '';
    };
    expect(message(3_000)).toContain('expired after 3 s idle');
    expect(message(30 * 60_000)).toContain('expired after 30 min idle');
  });

  it('lets one connection hold a session at a time; a stale unbind does nothing', () => {
    const registry = new SessionRegistry(TTL);
    const session = registry.add(null, 0);
    registry.bind(session.id, 'conn-1');
    expect(registry.bind(session.id, 'conn-1').owned).toBe(true);
    expect(codeOf(() => registry.bind(session.id, 'conn-2'))).toBe('session_owned');
    expect(registry.unbind(session.id, 'conn-2')).toBeUndefined();
    expect(session.owned).toBe(true);
    expect(registry.unbind(session.id, 'conn-1')).toBe(session);
    expect(session.owned).toBe(false);
    expect(registry.unbind('sess-gone', 'conn-1')).toBeUndefined();
  });

  it('pauses and resumes', () => {
    const registry = new SessionRegistry(TTL);
    const session = registry.add(null, 0);
    registry.setPaused(session.id, true);
    expect(registry.isPaused(session.id)).toBe(true);
    registry.setPaused(session.id, false);
    expect(registry.isPaused(session.id)).toBe(false);
    expect(registry.isPaused('sess-unknown')).toBe(false);
  });

  it('picks for reaping only idle sessions that nobody holds, that are not paused and not busy', () => {
    const registry = new SessionRegistry(TTL);
    const idle = registry.add('idle', 0);
    const held = registry.add('held', 0);
    const paused = registry.add('paused', 0);
    const busy = registry.add('busy', 0);
    const fresh = registry.add('fresh', 0);
    registry.bind(held.id, 'conn');
    registry.setPaused(paused.id, true);
    const now = Date.now() + TTL;
    fresh.lastUsedAt = now - TTL + 1;
    for (const session of [idle, held, paused, busy]) {
      session.lastUsedAt = now - TTL;
    }
    expect(registry.expired(now, (session) => session === busy)).toEqual([idle.id]);
  });

  it('forgets every session when cleared', () => {
    const registry = new SessionRegistry(TTL);
    const session = registry.add(null, 0);
    registry.clear();
    expect(registry.all()).toEqual([]);
    expect(codeOf(() => registry.get(session.id))).toBe('unknown_session');
  });
});
