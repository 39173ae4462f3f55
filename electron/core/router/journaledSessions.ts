import type { Session } from './Session.js';
import type { JournaledPage, JournaledSession } from './SessionJournal.js';
import { shownUrl } from '../../../shared/shownUrl.js';

/** What the session journal keeps of these sessions: pages whose tab is not known yet are left out. */
export function journalOf(sessions: readonly Session[]): JournaledSession[] {
  return sessions.map((session) => ({
    id: session.id,
    label: session.label,
    createdAt: session.createdAt,
    paused: session.paused,
    bound: session.owned,
    epoch: session.epoch,
    pages: [...session.pages.values()].flatMap((page): JournaledPage[] =>
      page.tabId === null
        ? []
        : [{ tabId: page.tabId, origin: page.origin, url: shownUrl(page.url), title: shownUrl(page.title), lastSelectedAt: page.lastSelectedAt, current: page.pageId === session.currentPageId }],
    ),
  }));
}

/**
 * Whether the sessions read as `journal` (what `journalOf` gave when it was last written), told without building
 * anything: most calls change only what the journal does not keep (when a session was last used, its last call).
 */
export function journalMatches(sessions: Iterable<Session>, journal: readonly JournaledSession[]): boolean {
  let index = 0;
  for (const session of sessions) {
    const record = journal[index++];
    if (
      record === undefined ||
      record.id !== session.id ||
      record.label !== session.label ||
      record.createdAt !== session.createdAt ||
      record.paused !== session.paused ||
      record.bound !== session.owned ||
      record.epoch !== session.epoch
    ) {
      return false;
    }
    let pageIndex = 0;
    for (const page of session.pages.values()) {
      if (page.tabId === null) {
        continue;
      }
      const kept = record.pages[pageIndex++];
      if (
        kept === undefined ||
        kept.tabId !== page.tabId ||
        kept.origin !== page.origin ||
        kept.url !== page.url ||
        kept.title !== page.title ||
        kept.lastSelectedAt !== page.lastSelectedAt ||
        kept.current !== (page.pageId === session.currentPageId)
      ) {
        return false;
      }
    }
    if (pageIndex !== record.pages.length) {
      return false;
    }
  }
  return index === journal.length;
}

/**
 * Fills a restored session from its journal record. Its pages get placeholder ids (below zero, which no worker uses)
 * until `renumber` gives them the ids its worker knows their tabs by; its epoch continues from where it was, so no
 * uid token from before names a snapshot taken after.
 */
export function fillFromJournal(session: Session, record: JournaledSession): void {
  session.paused = record.paused;
  session.epoch = record.epoch;
  let placeholder = -1;
  for (const journaled of record.pages) {
    const page = session.addPage(placeholder--, journaled.origin, journaled.url, journaled.title);
    page.tabId = journaled.tabId;
    page.lastSelectedAt = journaled.lastSelectedAt;
    if (journaled.current) {
      session.currentPageId = page.pageId;
    }
  }
}
