import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACTIVITY_FORMAT_VERSION, type ActivityEntry } from '../../../shared/activity.js';
import { ActivityLogStore } from './ActivityLogStore.js';
import { readActivityLog } from './readActivityLog.js';

let root: string;
let dir: string;
const errors: unknown[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmx-activity-'));
  dir = join(root, 'activity');
  errors.length = 0;
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function entry(n: number, session = 'sess-0000000000000001', at = 1_000 + n): ActivityEntry {
  return {
    v: ACTIVITY_FORMAT_VERSION,
    id: `t-${n}`,
    session,
    label: null,
    tool: 'click',
    args: { uid: `u:1:1:${n}`, pad: 'p'.repeat(100) },
    redacted: [],
    at,
    durationMs: 1,
    outcome: 'ok',
    error: null,
    summary: 'done',
    pageBefore: null,
    pageAfter: { pageId: 1, url: 'about:blank' },
    opened: [],
  };
}

function store(maxBytes = 1024 * 1024, maxAgeMs = 60_000, now?: () => number, directWrites?: boolean): ActivityLogStore {
  return new ActivityLogStore({ dir, maxBytes, maxAgeMs, onError: (error) => errors.push(error), ...(now ? { now } : {}), ...(directWrites === undefined ? {} : { directWrites }) });
}

describe('ActivityLogStore', () => {
  it('closes a segment at the entry that would take it over its size, however many entries one write holds', async () => {
    const maxBytes = 12_000;
    const log = store(maxBytes);
    await log.start();
    // All appended in one turn, so they are written as one batch.
    for (let n = 0; n < 60; n++) {
      void log.append(JSON.stringify(entry(n)));
    }
    await log.flush();
    const files = readdirSync(dir).filter((file) => file.endsWith('.jsonl'));
    const sizes = files.map((file) => statSync(join(dir, file)).size);
    const line = Buffer.byteLength(`${JSON.stringify(entry(10))}\n`);
    expect(files.length).toBeGreaterThan(2);
    for (const size of sizes) {
      expect(size).toBeLessThanOrEqual(maxBytes / 10 + 2);
      expect(size).toBeGreaterThanOrEqual(line - 2);
    }
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(maxBytes + maxBytes / 10);
    const { entries } = await log.query({ limit: 1000 });
    expect(entries.at(-1)?.id).toBe('t-59');
    await log.close();
    expect(errors).toEqual([]);
  });

  it('writes one line per entry, in a 0700 folder and 0600 files, and reads them back in order', async () => {
    const log = store();
    await log.start();
    for (let n = 0; n < 5; n++) {
      void log.append(JSON.stringify(entry(n)));
    }
    await log.flush();
    const files = readdirSync(dir);
    expect(files).toEqual(['activity-000001.jsonl']);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, files[0] ?? '')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, files[0] ?? ''), 'utf8').split('\n')).toHaveLength(6);
    const { entries, truncated } = await log.query({ limit: 100 });
    expect(entries.map((e) => e.id)).toEqual(['t-0', 't-1', 't-2', 't-3', 't-4']);
    expect(truncated).toBe(false);
    await log.close();
    expect(errors).toEqual([]);
  });

  it('does not write during the call that appends when direct writes are off', async () => {
    const log = store(undefined, undefined, undefined, false);
    await log.start();
    void log.append(JSON.stringify(entry(1)));
    expect(readdirSync(dir)).toEqual([]);
    await log.close();
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('with direct writes, hands a line to the OS during the append once the segment is open, nothing being written', async () => {
    const log = store(undefined, undefined, undefined, true);
    await log.start();
    // The first line opens the segment's file, through the pool.
    const first = log.append(JSON.stringify(entry(1)));
    expect(readdirSync(dir)).toEqual([]);
    // One that comes while that write runs waits behind it, in order.
    const second = log.append(JSON.stringify(entry(2)));
    await Promise.all([first, second, log.flush()]);
    void log.append(JSON.stringify(entry(3)));
    const lines = readFileSync(join(dir, 'activity-000001.jsonl'), 'utf8').split('\n').filter((line) => line !== '');
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['t-1', 't-2', 't-3']);
    expect(log.health).toEqual({ error: null, failingSince: null, pending: 0, dropped: 0 });
    await log.close();
    expect(errors).toEqual([]);
  });

  it('with direct writes, still closes a full segment and starts the next through the pool', async () => {
    const line = JSON.stringify(entry(1));
    // Room for two lines per segment.
    const log = store((Buffer.byteLength(line) + 1) * 2 * 10, undefined, undefined, true);
    await log.start();
    for (let n = 1; n <= 5; n++) {
      await log.append(JSON.stringify(entry(n)));
    }
    await log.close();
    expect(readdirSync(dir).sort()).toEqual(['activity-000001.jsonl', 'activity-000002.jsonl', 'activity-000003.jsonl']);
    const { entries } = await readActivityLog(dir, { limit: 10 });
    expect(entries.map((e) => e.id)).toEqual(['t-1', 't-2', 't-3', 't-4', 't-5']);
    expect(errors).toEqual([]);
  });

  it('resolves an append once its line is in the file, and writes what comes meanwhile in the next write', async () => {
    const log = store();
    await log.start();
    const first = log.append(JSON.stringify(entry(1)));
    const second = log.append(JSON.stringify(entry(2)));
    await first;
    expect(readFileSync(join(dir, 'activity-000001.jsonl'), 'utf8')).toContain('"id":"t-1"');
    await second;
    expect(readFileSync(join(dir, 'activity-000001.jsonl'), 'utf8').split('\n').filter((line) => line !== '')).toHaveLength(2);
    expect(log.health).toEqual({ error: null, failingSince: null, pending: 0, dropped: 0 });
    await log.close();
    expect(errors).toEqual([]);
  });

  it('filters by session and time and keeps the newest when limited', async () => {
    const log = store();
    for (let n = 0; n < 10; n++) {
      void log.append(JSON.stringify(entry(n, n % 2 === 0 ? 'sess-000000000000000a' : 'sess-000000000000000b')));
    }
    const even = await log.query({ session: 'sess-000000000000000a', limit: 100 });
    expect(even.entries.map((e) => e.id)).toEqual(['t-0', 't-2', 't-4', 't-6', 't-8']);
    const since = await log.query({ since: 1_007, limit: 100 });
    expect(since.entries.map((e) => e.id)).toEqual(['t-7', 't-8', 't-9']);
    const newest = await log.query({ limit: 3 });
    expect(newest.entries.map((e) => e.id)).toEqual(['t-7', 't-8', 't-9']);
    expect(newest.truncated).toBe(true);
    await log.close();
  });

  it('skips a partial last line (a crash mid-write) and any damaged line', async () => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'activity-000001.jsonl');
    writeFileSync(file, `${JSON.stringify(entry(1))}\nnot json\n${JSON.stringify({ v: 1, id: 'wrong shape' })}\n${JSON.stringify(entry(2))}\n${JSON.stringify(entry(3)).slice(0, 40)}`);
    expect((await readActivityLog(dir, { limit: 10 })).entries.map((e) => e.id)).toEqual(['t-1', 't-2']);
    // A store opened on it starts a new line in a new segment, so the cut line never swallows a new entry.
    const log = store(1024 * 1024);
    void log.append(JSON.stringify(entry(4)));
    await log.close();
    expect((await readActivityLog(dir, { limit: 10 })).entries.map((e) => e.id)).toEqual(['t-1', 't-2', 't-4']);
  });

  it('rotates into numbered segments and drops the oldest beyond maxBytes', async () => {
    const log = store(4096);
    const lineBytes = JSON.stringify(entry(0)).length + 1;
    for (let n = 0; n < 100; n++) {
      void log.append(JSON.stringify(entry(n)));
      await log.flush();
    }
    await log.close();
    const files = readdirSync(dir).sort();
    expect(files.length).toBeGreaterThan(1);
    const total = files.reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
    expect(total).toBeLessThanOrEqual(4096 + 1024 + lineBytes);
    const { entries } = await readActivityLog(dir, { limit: 1000 });
    expect(entries.at(-1)?.id).toBe('t-99');
    expect(entries[0]?.id).not.toBe('t-0');
    const ids = entries.map((e) => Number(e.id.slice(2)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('removes segments older than maxAgeMs when it opens', async () => {
    mkdirSync(dir, { recursive: true });
    const old = join(dir, 'activity-000001.jsonl');
    const recent = join(dir, 'activity-000002.jsonl');
    appendFileSync(old, `${JSON.stringify(entry(1))}\n`);
    appendFileSync(recent, `${JSON.stringify(entry(2))}\n`);
    const now = Date.now();
    utimesSync(old, new Date(now - 120_000), new Date(now - 120_000));
    const log = store(1024 * 1024, 60_000);
    await log.start();
    expect(readdirSync(dir)).toEqual(['activity-000002.jsonl']);
    await log.close();
  });
});
