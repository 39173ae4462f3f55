import { describe, expect, it } from 'vitest';
import { Session, type OwnedPage } from './Session.js';
import { fillFromJournal, journalMatches, journalOf } from './journaledSessions.js';

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

  it('tells a change the journal keeps from one it does not, without building the journal', () => {
    const make = (): Session[] => {
      const first = new Session('sess-0123456789abcdef', '01234567', 'agent', 0, 1);
      const page = first.addPage(3, 'created', 'https://a.test/', 'A');
      page.tabId = 'TAB-A';
      first.addPage(4, 'opened', 'https://b.test/', 'B');
      first.select(3);
      return [first, new Session('sess-fedcba9876543210', '76543210', null, 0, 2)];
    };
    const sessions = make();
    const written = journalOf(sessions);
    expect(journalMatches(sessions, written)).toBe(true);
    // What the journal does not keep: when the session was last used, its last call.
    const [first] = sessions;
    if (!first) {
      throw new Error('no session');
    }
    first.lastUsedAt += 1000;
    first.lastCall = { tool: 'list_pages', outcome: 'ok', at: 5, endedAt: 6 };
    expect(journalMatches(sessions, written)).toBe(true);

    // Every field it keeps, each changed alone on a fresh copy, reads as a change.
    const onPage =
      (pageId: number, change: (page: OwnedPage) => void) =>
      ([one]: Session[]): void => {
        const page = one?.pages.get(pageId);
        if (page) {
          change(page);
        }
      };
    const changes: ((sessions: Session[]) => void)[] = [
      (all) => all.pop(),
      (all) => all.push(new Session('sess-0000000000000000', '00000000', 'late', 0, 3)),
      (all) => all.reverse(),
      ([one]) => one && (one.paused = true),
      ([one]) => one && (one.epoch += 1),
      ([one]) => one && (one.boundBy = 'client-1'),
      ([one]) => one && (one.label = 'renamed'),
      ([one]) => one?.select(4),
      ([one]) => one?.pages.delete(3),
      onPage(4, (page) => (page.tabId = 'TAB-B')),
      onPage(3, (page) => (page.url = 'https://a.test/next')),
      onPage(3, (page) => (page.title = 'A, later')),
      onPage(3, (page) => (page.lastSelectedAt += 1)),
    ];
    for (const change of changes) {
      const fresh = make();
      const before = journalOf(fresh);
      change(fresh);
      // Each of them changes what would be written, and is seen as a change.
      expect(JSON.stringify(journalOf(fresh)), String(change)).not.toBe(JSON.stringify(before));
      expect(journalMatches(fresh, before), String(change)).toBe(false);
    }
  });

  it('compares every field the journal keeps, so a field added to it cannot go unchecked', () => {
    const session = new Session('sess-0123456789abcdef', '01234567', 'agent', 0, 1);
    const page = session.addPage(3, 'created', 'https://a.test/', 'A');
    page.tabId = 'TAB-A';
    session.select(3);
    const [record] = journalOf([session]);
    const [kept] = record?.pages ?? [];
    if (!record || !kept) {
      throw new Error('no record');
    }
    const other = (value: unknown): unknown => (typeof value === 'number' ? value + 1 : typeof value === 'boolean' ? !value : `${String(value)}-other`);
    for (const key of Object.keys(record).filter((name) => name !== 'pages')) {
      expect(journalMatches([session], [{ ...record, [key]: other(record[key as keyof typeof record]) }]), key).toBe(false);
    }
    for (const key of Object.keys(kept)) {
      expect(journalMatches([session], [{ ...record, pages: [{ ...kept, [key]: other(kept[key as keyof typeof kept]) }] }]), `pages.${key}`).toBe(false);
    }
  });
});
