import { describe, expect, it } from 'vitest';
import { Logger } from '../platform/Logger.js';
import { MAX_DOWNLOAD_NOTES, sessionDownloads } from './sessionDownloads.js';
import { Session } from './Session.js';

function owner(): { session: Session; changed: number[]; tell: ReturnType<typeof sessionDownloads>['tell'] } {
  const session = new Session('sess-1', '1', null, 0, 0);
  const changed: number[] = [];
  const downloads = sessionDownloads(session, '/files', () => changed.push(1), Logger.silent());
  expect(downloads.tally).toBe(session.downloads);
  return { session, changed, tell: downloads.tell };
}

const saved = (index: number) => ({ kind: 'saved' as const, name: `f${index}.bin`, path: `/files/sess-1/downloads/f${index}.bin`, bytes: 10 });
const overLimit = (index: number) => ({ kind: 'over_limit' as const, name: `f${index}.bin`, limit: 'files' as const, maxBytes: 1000, maxFiles: 3 });

describe('sessionDownloads', () => {
  it('gives the next result a few notes about downloads and counts the rest in one line', () => {
    const { session, tell } = owner();
    session.notes.push('Note: your page 1 was closed outside this session and is no longer yours.');
    for (let index = 0; index < MAX_DOWNLOAD_NOTES + 7; index++) {
      tell(saved(index));
    }
    expect(session.notes).toHaveLength(1 + MAX_DOWNLOAD_NOTES + 1);
    expect(session.notes[0]).toContain('closed outside this session');
    expect(session.notes.at(-1)).toBe('Note: and 7 more downloads from your page; what was kept is in /files/sess-1/downloads.');

    // Once the result carried them, the next one starts again.
    session.notes.length = 0;
    tell(saved(99));
    expect(session.notes).toEqual([expect.stringContaining('(f99.bin, 10 bytes) was saved to')]);
  });

  it('tells of a limit reached once, not of every download after it', () => {
    const { session, changed, tell } = owner();
    tell(overLimit(1));
    tell(overLimit(2));
    session.notes.length = 0;
    tell(overLimit(3));
    expect(changed).toHaveLength(1);
    expect(session.notes).toEqual([]);
  });

  it('says which limit, and how much it allows', () => {
    const { session, tell } = owner();
    tell({ kind: 'over_limit', name: 'big.bin', limit: 'bytes', maxBytes: 1000, maxFiles: 3 });
    expect(session.notes[0]).toContain('(big.bin) was not kept');
    expect(session.notes[0]).toContain('(1000 bytes in this profile)');
  });
});
