import { describe, expect, it, vi } from 'vitest';
import type * as zodMini from 'zod/mini';

// Counts the object schemas the protocol builds: every process that loads it (a daemon above all, which keeps what it
// builds for good) should build only those it checks something against.
vi.mock('zod/mini', async (importOriginal) => {
  const real = await importOriginal<typeof zodMini>();
  return { ...real, object: vi.fn(real.object), looseObject: vi.fn(real.looseObject), discriminatedUnion: vi.fn(real.discriminatedUnion) };
});

const z = await import('zod/mini');
const { controlMethods, controlResultSchema } = await import('./protocol.js');
const { daemonEventSchema } = await import('./modelSchemas.js');

const built = (): number => vi.mocked(z.object).mock.calls.length + vi.mocked(z.looseObject).mock.calls.length + vi.mocked(z.discriminatedUnion).mock.calls.length;

const session = {
  id: 'sess-0123456789abcdef',
  label: 'agent',
  createdAt: 1,
  lastUsedAt: 2,
  owned: true,
  paused: false,
  activity: 'idle',
  worker: 0,
  currentPageId: 3,
  pages: [{ pageId: 3, url: 'about:blank', title: '', origin: 'created', current: true }],
  epoch: 1,
  queued: 0,
  running: 0,
};

describe('control protocol schemas', () => {
  it('builds no object schema when loaded, and a method\'s params only when they are asked for', () => {
    expect(built()).toBe(0);
    const params = controlMethods['tabmux/session.bind'].params();
    expect(built()).toBe(1);
    expect(params.safeParse({ session: 'sess-0123456789abcdef' }).success).toBe(true);
    expect(params.safeParse({ session: 'x'.repeat(65) }).success).toBe(false);
    // Built once: the same schema every time, nothing built again.
    expect(controlMethods['tabmux/session.bind'].params()).toBe(params);
    expect(built()).toBe(1);
  });

  it('checks results with the model schemas built on first use', () => {
    const result = controlResultSchema('tabmux/session.create');
    expect(result.safeParse(session).success).toBe(true);
    const withoutEpoch: Record<string, unknown> = { ...session };
    delete withoutEpoch['epoch'];
    expect(result.safeParse(withoutEpoch).success).toBe(false);
    expect(result.safeParse({ ...session, pages: [{ ...session.pages[0], origin: 'stolen' }] }).success).toBe(false);
    expect(controlResultSchema('tabmux/session.create')).toBe(result);
  });

  it('tells events apart by type through the lazily built union', () => {
    expect(daemonEventSchema.safeParse({ type: 'session.closed', profile: 'default', sessionId: session.id, reason: 'expired' }).success).toBe(true);
    expect(daemonEventSchema.safeParse({ type: 'session.updated', profile: 'default', session }).success).toBe(true);
    expect(daemonEventSchema.safeParse({ type: 'session.closed', profile: 'default', sessionId: session.id, reason: 'gone' }).success).toBe(false);
    expect(daemonEventSchema.safeParse({ type: 'unknown', profile: 'default' }).success).toBe(false);
  });

  it('fills defaults and keeps limits in params built on demand', () => {
    const call = controlMethods['tabmux/call'].params();
    expect(call.parse({ session: session.id, name: 'list_pages' })).toEqual({ session: session.id, name: 'list_pages', arguments: {} });
    expect(call.safeParse({ session: session.id, name: 'x'.repeat(201) }).success).toBe(false);
    expect(controlMethods['tabmux/status'].params().parse(undefined)).toBeUndefined();
  });
});
