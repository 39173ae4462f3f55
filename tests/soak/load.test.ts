import fc from 'fast-check';
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startTestDaemon, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';

const SESSIONS = 30;
const CALLS = 20;

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ workers: 4 });
});

afterAll(async () => {
  await t.stop();
});

describe('load', () => {
  it(`${SESSIONS} sessions x ${CALLS} calls at once: nothing lost, duplicated or misrouted`, async () => {
    const sessions: BoundSession[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      sessions.push(await t.session(`load-${i}`));
    }
    await Promise.all(sessions.map((s, i) => s.text('new_page', { url: html(`<button>b${i}</button>`, `owner-${i}`) })));
    const started = Date.now();
    const outcomes = await Promise.all(
      sessions.map(async (s, i) => {
        const seen: string[] = [];
        for (let n = 0; n < CALLS; n++) {
          if (n % 5 === 4) {
            const snapshot = await s.text('take_snapshot');
            const tokens = [...snapshot.matchAll(/uid=(\S+)/g)].map((m) => m[1] ?? '');
            expect(tokens.length).toBeGreaterThan(0);
            expect(tokens.every((token) => token.startsWith(`u:${s.short}:`))).toBe(true);
            expect(snapshot).toContain(`"owner-${i}"`);
            seen.push(`snap-${n}`);
          } else {
            const text = await s.text('evaluate_script', { function: `() => document.title + '#${n}'`, waitForStableDom: false });
            expect(text).toContain(`owner-${i}#${n}`);
            seen.push(`eval-${n}`);
          }
        }
        const listed = await s.text('list_pages');
        expect(listed.match(/^\d+: /gm)).toHaveLength(1);
        expect(listed).toContain(`owner-${i}`);
        return seen;
      }),
    );
    const total = outcomes.flat().length;
    expect(total).toBe(SESSIONS * CALLS);
    for (const seen of outcomes) {
      expect(new Set(seen).size).toBe(CALLS);
    }
    const status = await sessions[0]!.client.call('tabmux/status');
    expect(status.queue).toEqual([]);
    process.stdout.write(`load: ${total} calls from ${SESSIONS} sessions in ${Date.now() - started} ms on ${status.workers.length} workers, 0 lost, 0 misrouted\n`);
  }, 300_000);
});

describe('socket fuzzing', () => {
  it('survives random bytes and random JSON-RPC on the socket while a session keeps working', async () => {
    const good = await t.session('fuzz-witness');
    await good.text('take_snapshot');
    let inputs = 0;
    const payload = fc.oneof(
      fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
      fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value))),
      fc
        .record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string()), method: fc.constantFrom('tabmux/hello', 'tabmux/status', 'tabmux/session.bind', 'tabmux/session.close', 'tabmux/call', 'tools/call', 'tabmux/queue.cancel', 'nope'), params: fc.jsonValue() })
        .map((request) => Buffer.from(JSON.stringify(request))),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(payload, { minLength: 1, maxLength: 20 }), async (lines) => {
        inputs += lines.length;
        await new Promise<void>((resolve) => {
          const socket = createConnection({ path: t.daemon.socketPath });
          socket.on('error', () => resolve());
          socket.on('connect', () => {
            socket.write(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tabmux/hello', params: { protocolVersion: 1 } })}\n`));
            for (const line of lines) {
              socket.write(Buffer.concat([line, Buffer.from('\n')]));
            }
            setTimeout(() => {
              socket.destroy();
              resolve();
            }, 20);
          });
        });
      }),
      { numRuns: 150 },
    );
    const status = await good.client.call('tabmux/status');
    expect(status.state).toBe('ready');
    expect(await good.text('evaluate_script', { function: '() => "still here"' })).toContain('still here');
    process.stdout.write(`fuzz: ${inputs} hostile messages on 150 connections, daemon still serving\n`);
  }, 300_000);

  it('keeps bind, close and calls racing each other consistent', async () => {
    const control = await t.connect();
    for (let round = 0; round < 40; round++) {
      const { id } = await control.call('tabmux/session.create', { label: `race-${round}` });
      const [one, two] = await Promise.all([t.connect(), t.connect()]);
      const outcomes = await Promise.allSettled([
        one.call('tabmux/session.bind', { session: id }),
        two.call('tabmux/session.bind', { session: id }),
        control.call('tabmux/call', { session: id, name: 'list_pages', arguments: {} }),
        control.call('tabmux/session.close', { session: id }),
      ]);
      // At most one bind wins; the close always lands; nothing is left behind.
      expect(outcomes.slice(0, 2).filter((o) => o.status === 'fulfilled').length).toBeLessThanOrEqual(1);
      expect(outcomes[3]?.status).toBe('fulfilled');
      one.close();
      two.close();
    }
    const status = await control.call('tabmux/status');
    expect(status.sessions.filter((s) => s.label?.startsWith('race-'))).toEqual([]);
    expect(status.queue).toEqual([]);
  });
});
