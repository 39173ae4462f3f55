import { describe, expect, it } from 'vitest';
import { Logger } from '../platform/Logger.js';
import { Session } from './Session.js';
import type { Worker } from './Worker.js';
import { WorkerMemoryWatch } from './WorkerMemoryWatch.js';
import type { FakeUpstream } from './testing/FakeUpstream.js';
import { isUpstreamClosed, poolSetup } from './testing/poolSetup.js';

const MIB = 1024 * 1024;
const LIMIT_MB = 2048;

/** A pool of `size` workers whose first one serves the sessions `ids`, running, with a known pid and memory. */
async function setup(size: number, ids: string[], memoryMb: number) {
  const sessions = ids.map((id) => new Session(id, id.slice(5, 13), null, 0, Date.now()));
  const moves: string[] = [];
  const relocate = (session: Session, to: Worker, since: string): Promise<void> => {
    moves.push(`${session.id} -> ${to.index}: ${since}`);
    return Promise.resolve();
  };
  const sessionsOn = (worker: Worker): Session[] => sessions.filter((session) => session.worker === worker.index);
  // The watch under test is driven by hand: the pool's own one is off (limit 0), its placement still sees who is where.
  const { pool, started } = poolSetup({ size, memory: { limitMb: 0, sessionsOn, relocate } });
  const first = pool.first;
  first.sessions = sessions.length;
  await first.ensureStarted();
  const upstream = started[0] as FakeUpstream;
  upstream.pid = 4242;
  const watch = new WorkerMemoryWatch({
    limitMb: LIMIT_MB,
    workers: () => [0, 1, 2].flatMap((index) => pool.at(index) ?? []),
    sessionsOn,
    moveToFree: (session, since) => pool.moveToFree(session, relocate, since),
    runSystem: (worker, tool, run) => pool.runSystem(worker, tool, run),
    logger: Logger.silent(),
    residentBytes: (pid) => (pid === 4242 ? memoryMb * MIB : undefined),
  });
  return { pool, started, sessions, moves, watch, upstream, relocate };
}

describe('WorkerMemoryWatch', () => {
  it('moves the sessions of a worker past the limit apart, to workers nobody uses, and then replaces it', async () => {
    const { pool, sessions, moves, watch, upstream } = await setup(3, ['sess-00000000aaaa0000', 'sess-00000000bbbb0000'], 3000);
    await watch.check();
    expect(sessions.map((session) => session.worker)).toEqual([1, 2]);
    expect(moves).toEqual([
      'sess-00000000aaaa0000 -> 1: the one they ran on had grown to 3000 MiB, over the profile\'s limit of 2048 MiB (workerMemoryMb): upstream keeps what the pages it serves log, so sessions there move apart',
      'sess-00000000bbbb0000 -> 2: the one they ran on had grown to 3000 MiB, over the profile\'s limit of 2048 MiB (workerMemoryMb): upstream keeps what the pages it serves log, so sessions there move apart',
    ]);
    // Nobody is left on it: its upstream is gone, and comes back when a session needs the worker.
    expect(await isUpstreamClosed(upstream)).toBe(true);
    expect(pool.first.upstream).toBeNull();
    expect(sessions.flatMap((session) => session.notes)).toEqual([]);
    expect(sessions.map((session) => [...session.apart])).toEqual([['sess-00000000bbbb0000'], ['sess-00000000aaaa0000']]);
  });

  it('keeps sessions apart afterwards: one whose worker is busy does not move to the worker of the other', async () => {
    const { pool, sessions, watch, relocate } = await setup(2, ['sess-00000000aaaa0000', 'sess-00000000bbbb0000'], 3000);
    await watch.check();
    const [moved, stayed] = sessions as [Session, Session];
    expect([moved.worker, stayed.worker]).toEqual([1, 0]);
    expect(stayed.notes).toHaveLength(1);
    await Promise.all([pool.first.ensureStarted(), pool.at(1)?.ensureStarted()]);
    let release: () => void = () => undefined;
    let running: () => void = () => undefined;
    const runs = new Promise<void>((resolve) => (running = resolve));
    const busy = pool.runSystem(pool.first, 'something long', () => {
      running();
      return new Promise<void>((resolve) => (release = resolve));
    });
    await runs;
    // Worker 1 is idle, but serves the session this one is kept apart from: it waits for its own worker instead.
    expect((await pool.place(stayed, relocate)).index).toBe(0);
    release();
    await busy;
  });

  it('replaces the worker under the sessions it cannot move, and tells them why', async () => {
    const { pool, started, sessions, moves, watch, upstream } = await setup(1, ['sess-00000000aaaa0000', 'sess-00000000bbbb0000'], 2500);
    await watch.check();
    expect(moves).toEqual([]);
    expect(await isUpstreamClosed(upstream)).toBe(true);
    // A fresh upstream, started at once for the sessions still there.
    await pool.first.ensureStarted();
    expect(started).toHaveLength(2);
    for (const session of sessions) {
      expect(session.notes).toEqual([
        "Note: tabmux replaced the upstream worker your calls run on: it had grown to 2500 MiB, over the profile's limit of 2048 MiB (workerMemoryMb). Upstream keeps what the pages it serves log to their console, so a page that logs large messages without end grows it; if one of your pages does, its worker is replaced again each time.",
      ]);
    }
  });

  it('leaves a worker under the limit, and one that records a performance trace, alone', async () => {
    const under = await setup(3, ['sess-00000000aaaa0000', 'sess-00000000bbbb0000'], 2000);
    await under.watch.check();
    expect(under.moves).toEqual([]);
    expect(await isUpstreamClosed(under.upstream)).toBe(false);
    // What it read is shown with the worker; workers without a process show none.
    expect(under.pool.infos().map((info) => info.residentMb)).toEqual([2000, undefined, undefined]);

    const tracing = await setup(3, ['sess-00000000aaaa0000', 'sess-00000000bbbb0000'], 3000);
    tracing.pool.first.trace.recording = true;
    await tracing.watch.check();
    expect(tracing.moves).toEqual([]);
    expect(await isUpstreamClosed(tracing.upstream)).toBe(false);
  });
});
