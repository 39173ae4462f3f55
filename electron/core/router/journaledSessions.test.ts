import { describe, expect, it } from 'vitest';
import { Session } from './Session.js';
import { fillFromJournal, journalOf } from './journaledSessions.js';

describe('journaled sessions', () => {
  it('keeps what a restored session needs, and gives it back with placeholder page ids', () => {
    const session = new Session('sess-0123456789abcdef', '01234567', 'agent', 0, 1);
    session.paused = true;
    session.epoch = 7;
    const first = session.addPage(3, 'created', 'https://a.test/', 'A');
    first.tabId = 'TAB-A';
    const second = session.addPage(5, 'attached', 'https://b.test/', 'B');
    second.tabId = 'TAB-B';
    session.addPage(8, 'opened', 'https://c.test/', 'C');
    session.select(5);

    const [record] = journalOf([session]);
    // A page whose tab is not known yet cannot be found again, so it is left out.
    expect(record?.pages.map((page) => page.tabId)).toEqual(['TAB-A', 'TAB-B']);
    expect(record).toMatchObject({ id: session.id, label: 'agent', paused: true, epoch: 7, bound: false });
    if (!record) {
      throw new Error('no record');
    }

    const restored = new Session(record.id, '01234567', record.label, 0, 2);
    fillFromJournal(restored, record);
    expect(restored.paused).toBe(true);
    expect(restored.epoch).toBe(7);
    expect([...restored.pages.values()].map((page) => [page.pageId, page.tabId, page.origin])).toEqual([
      [-1, 'TAB-A', 'created'],
      [-2, 'TAB-B', 'attached'],
    ]);
    expect(restored.currentPage?.tabId).toBe('TAB-B');
  });
});
