import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJournal, readSessionJournal, SessionJournal, type JournaledSession } from './SessionJournal.js';

const session = (id: string, tabId: string): JournaledSession => ({
  id,
  label: 'agent',
  createdAt: 1,
  paused: false,
  bound: true,
  epoch: 3,
  pages: [{ tabId, origin: 'created', url: 'https://example.test/', title: 'Example', lastSelectedAt: 2, current: true }],
});

describe('SessionJournal', () => {
  const dirs: string[] = [];
  const fresh = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    dirs.push(dir);
    return join(dir, 'sessions.json');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('settles a scheduled change on file at once, and costs no wait when nothing changed', async () => {
    const path = fresh();
    const journal = new SessionJournal(path, (error) => {
      throw error;
    });
    expect(journal.settle(1000)).toBeUndefined();
    journal.schedule(() => [session('sess-a', 'T1')]);
    await journal.settle(1000);
    // Read without waiting for the debounce: the reply that waited on settle may be the last thing the daemon does.
    expect(parseJournal(readFileSync(path, 'utf8')).map((s) => s.id)).toEqual(['sess-a']);
    expect(journal.settle(1000)).toBeUndefined();
    await journal.clear();
  });

  it('costs no wait for a scheduled change the file already holds, and waits again once one differs', async () => {
    const path = fresh();
    const journal = new SessionJournal(path, (error) => {
      throw error;
    });
    journal.schedule(() => [session('sess-a', 'T1')]);
    await journal.settle(1000);
    // A call that only touched what the journal does not keep (when the session was last used) schedules the same text.
    journal.schedule(() => [session('sess-a', 'T1')]);
    expect(journal.settle(1000)).toBeUndefined();
    journal.schedule(() => [session('sess-a', 'T2')]);
    const waited = journal.settle(1000);
    expect(waited).toBeInstanceOf(Promise);
    await waited;
    expect(parseJournal(readFileSync(path, 'utf8'))[0]?.pages[0]?.tabId).toBe('T2');
    await journal.clear();
  });

  it('takes the word of an unchanged check over building the state, once a version is on file', async () => {
    const path = fresh();
    const journal = new SessionJournal(path, (error) => {
      throw error;
    });
    let built = 0;
    const state = (tabId: string) => (): JournaledSession[] => {
      built++;
      return [session('sess-a', tabId)];
    };
    // Nothing on file yet: the check is not asked, the state is built and written.
    journal.schedule(state('T1'), () => true);
    await journal.settle(1000);
    expect(built).toBe(1);
    // The check says the sessions still read as that version: no state built, no wait.
    journal.schedule(state('T1'), (written) => written[0]?.pages[0]?.tabId === 'T1');
    expect(journal.settle(1000)).toBeUndefined();
    expect(built).toBe(1);
    // It says they changed: built and written.
    journal.schedule(state('T2'), (written) => written[0]?.pages[0]?.tabId === 'T2');
    await journal.settle(1000);
    expect(built).toBe(2);
    expect(parseJournal(readFileSync(path, 'utf8'))[0]?.pages[0]?.tabId).toBe('T2');
    // The debounced write takes its word too.
    journal.schedule(state('T2'), () => true);
    await journal.flush();
    expect(built).toBe(2);
    await journal.clear();
    // After a clear nothing is on file, so nothing is taken as written.
    expect(readdirSync(dirname(path))).toEqual([]);
  });

  it('reads back what it wrote, and the latest of several scheduled versions', async () => {
    const path = fresh();
    const journal = new SessionJournal(path, (error) => {
      throw error;
    });
    journal.schedule(() => [session('sess-a', 'T1')]);
    journal.schedule(() => [session('sess-a', 'T1'), session('sess-b', 'T2')]);
    await journal.flush();
    expect((await readSessionJournal(path)).map((s) => s.id)).toEqual(['sess-a', 'sess-b']);
    await journal.clear();
    expect(await readSessionJournal(path)).toEqual([]);
  });

  it('reads a journal cut at any byte as none at all, never as wrong sessions', async () => {
    const path = fresh();
    await new SessionJournal(path, () => undefined).write([session('sess-a', 'T1')]);
    const whole = readFileSync(path, 'utf8');
    for (let cut = 0; cut < whole.length; cut++) {
      expect(parseJournal(whole.slice(0, cut))).toEqual([]);
    }
    expect(parseJournal(whole)).toHaveLength(1);
    // A body changed under an intact checksum line (a block of another file, say) is refused too.
    expect(parseJournal(whole.replace('T1', 'T9'))).toEqual([]);
  });

  it('keeps the last whole version when a later write is torn before its rename', async () => {
    const path = fresh();
    const journal = new SessionJournal(path, () => undefined);
    await journal.write([session('sess-a', 'T1')]);
    // A daemon killed while writing the next version leaves its staging file half written; the journal is untouched.
    writeFileSync(`${path}.new-0123456789abcdef`, readFileSync(path, 'utf8').slice(0, 40));
    expect((await readSessionJournal(path)).map((s) => s.id)).toEqual(['sess-a']);
    // The next daemon writes over it as usual.
    await new SessionJournal(path, () => undefined).write([session('sess-b', 'T2')]);
    expect((await readSessionJournal(path)).map((s) => s.id)).toEqual(['sess-b']);
    expect(readdirSync(join(path, '..')).filter((name) => name === 'sessions.json')).toHaveLength(1);
  });

  it('reads a missing journal as none', async () => {
    expect(await readSessionJournal(join(fresh(), 'nothing-here'))).toEqual([]);
  });
});
