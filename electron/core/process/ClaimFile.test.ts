import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimFile, runningHolder, type ClaimOutcome } from './ClaimFile.js';
import { inspectProcess, ownIdentity } from './processState.js';

let root: string;
let file: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tmx-claim-'));
  file = join(root, 'default.pid');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A pid that no process has any more: a child that ran and was reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number.parseInt(child.stdout, 10);
}

function claimOf(outcome: ClaimOutcome): ClaimFile {
  if (!('claim' in outcome)) {
    throw new Error(`expected a claim, got holder pid ${outcome.holder.pid}`);
  }
  return outcome.claim;
}

function record(): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

describe('ClaimFile', () => {
  it('claims a free file with the record, this pid, its identity and a claim id', async () => {
    const outcome = await ClaimFile.acquire(file, { chromePid: null });
    const claim = claimOf(outcome);
    expect(outcome).toMatchObject({ replaced: [] });
    expect(record()).toMatchObject({ chromePid: null, pid: process.pid, nonce: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown });
    expect(record()['identity']).toBe(ownIdentity());
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await claim.held()).toBe(true);
    // Nothing but the claim is left next to it.
    expect(readdirSync(root)).toEqual(['default.pid']);
  });

  it('lets exactly one of many simultaneous claimers win', async () => {
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => ClaimFile.acquire(file, { i })));
    expect(outcomes.filter((outcome) => 'claim' in outcome)).toHaveLength(1);
    for (const outcome of outcomes) {
      if ('holder' in outcome) {
        expect(outcome.holder).toMatchObject({ pid: process.pid, nonce: record()['nonce'] });
      }
    }
    expect(readdirSync(root)).toEqual(['default.pid']);
  });

  it('takes over the claim of a process that is gone, once, however many take it over at once', async () => {
    const stale = { pid: deadPid(), chromePid: 4242, nonce: 'aaaaaaaaaaaaaaaa' };
    writeFileSync(file, JSON.stringify(stale));
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => ClaimFile.acquire(file, { chromePid: null })));
    const winners = outcomes.filter((outcome) => 'claim' in outcome);
    expect(winners).toHaveLength(1);
    // The dead holder's record comes back once, to the one that removed it, for cleaning up after it.
    expect(outcomes.flatMap((outcome) => ('replaced' in outcome ? outcome.replaced : []))).toEqual([stale]);
    expect(record()['pid']).toBe(process.pid);
    expect(readdirSync(root)).toEqual(['default.pid']);
  });

  it.skipIf(process.platform !== 'linux')('takes over a zombie holder and a reused pid, but not a running holder', async () => {
    const parent = spawn('/bin/sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString('utf8'), 10))));
      const identity = inspectProcess(zombie).identity;
      writeFileSync(file, JSON.stringify({ pid: zombie, identity, nonce: 'bbbbbbbbbbbbbbbb' }));
      // Running: held.
      expect(await ClaimFile.acquire(file, {})).toEqual({ holder: { pid: zombie, identity, nonce: 'bbbbbbbbbbbbbbbb' } });
      expect(await runningHolder(file)).toMatchObject({ pid: zombie });
      process.kill(zombie, 'SIGKILL');
      while (inspectProcess(zombie).state !== 'zombie') {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await runningHolder(file)).toBeUndefined();
      const claim = claimOf(await ClaimFile.acquire(file, {}));
      await claim.release();
      // The parent (sleep) runs, but under another identity than the one recorded: its pid was "reused".
      writeFileSync(file, JSON.stringify({ pid: parent.pid, identity: `${identity ?? ''}-before`, nonce: 'cccccccccccccccc' }));
      expect(await runningHolder(file)).toBeUndefined();
      claimOf(await ClaimFile.acquire(file, {}));
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('takes over an unreadable file, and one left by an older tabmux without identity or claim id', async () => {
    writeFileSync(file, '{"pid": 12');
    await claimOf(await ClaimFile.acquire(file, {})).release();
    writeFileSync(file, JSON.stringify({ pid: deadPid(), chromePid: null, userDataDir: '/u', startedAt: 1 }));
    await claimOf(await ClaimFile.acquire(file, {})).release();
    // This process's own pid without an identity was written by another process that had the pid before.
    writeFileSync(file, JSON.stringify({ pid: process.pid }));
    claimOf(await ClaimFile.acquire(file, {}));
  });

  it('takes over a claim whose taker died holding the takeover marker', async () => {
    writeFileSync(file, JSON.stringify({ pid: deadPid(), nonce: 'dddddddddddddddd' }));
    writeFileSync(`${file}.takeover-dddddddddddddddd`, JSON.stringify({ pid: deadPid(), nonce: 'eeeeeeeeeeeeeeee' }));
    claimOf(await ClaimFile.acquire(file, {}));
    expect(record()['pid']).toBe(process.pid);
    expect(readdirSync(root)).toEqual(['default.pid']);
  });

  it('waits for a running taker instead of taking over alongside it', async () => {
    writeFileSync(file, JSON.stringify({ pid: deadPid(), nonce: 'ffffffffffffffff' }));
    // Another process is taking the stale claim over (its marker is held by a running process, this one).
    const marker = claimOf(await ClaimFile.acquire(`${file}.takeover-ffffffffffffffff`, {}));
    const waiting = ClaimFile.acquire(file, {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ nonce: 'ffffffffffffffff' });
    // That taker finishes: it removes the stale claim and gives up its marker without claiming.
    rmSync(file);
    await marker.release();
    claimOf(await waiting);
  });

  it('updates its record atomically, and never writes over or removes another claim', async () => {
    const claim = claimOf(await ClaimFile.acquire(file, { chromePid: null }));
    const nonce = record()['nonce'];
    expect(await claim.update({ chromePid: 77 })).toBe(true);
    expect(record()).toMatchObject({ chromePid: 77, pid: process.pid, nonce });
    // Another claim stands there now (this one was taken over): it is left exactly as it is.
    const other = JSON.stringify({ pid: process.pid, nonce: '0123456789abcdef' });
    writeFileSync(file, other);
    expect(await claim.held()).toBe(false);
    expect(await claim.update({ chromePid: 88 })).toBe(false);
    await claim.release();
    expect(readFileSync(file, 'utf8')).toBe(other);
    rmSync(file);
    await claim.release();
  });

  it.skipIf(process.platform === 'win32')('does not follow a symlink planted at the claim', async () => {
    const target = join(root, 'target');
    writeFileSync(target, 'keep');
    symlinkSync(target, file);
    claimOf(await ClaimFile.acquire(file, {}));
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(record()['pid']).toBe(process.pid);
  });
});
