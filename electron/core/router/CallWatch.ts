import type { ActivityPage } from '../../../shared/activity.js';
import type { OwnedPage, Session } from './Session.js';

/** A tab's current URL as the browser reports it on the daemon's own connection, when there is one. */
export type TabUrl = (tabId: string) => string | undefined;

/**
 * The session's pages around one call: its current page when the call started and when it ended, and the pages it
 * gained meanwhile. URLs come from the browser's own tab list when the tab id is known, else from upstream's
 * structured page list (the router's copy of it); never from the text of an answer.
 */
export class CallWatch {
  #before: ActivityPage | null;
  #pagesBefore: ReadonlySet<number>;

  constructor(
    private readonly session: Session,
    private readonly tabUrl: TabUrl,
  ) {
    this.#before = this.#page(session.currentPage);
    this.#pagesBefore = new Set(session.pages.keys());
  }

  /** The call starts running (it may have waited in the queue meanwhile). */
  started(): void {
    this.#before = this.#page(this.session.currentPage);
    this.#pagesBefore = new Set(this.session.pages.keys());
  }

  get before(): ActivityPage | null {
    return this.#before;
  }

  after(): { pageAfter: ActivityPage | null; tabAfter: string | null; opened: ActivityPage[] } {
    const opened: ActivityPage[] = [];
    for (const page of this.session.pages.values()) {
      if (!this.#pagesBefore.has(page.pageId)) {
        opened.push(this.#page(page) ?? { pageId: page.pageId, url: page.url });
      }
    }
    return { pageAfter: this.#page(this.session.currentPage), tabAfter: this.session.currentPage?.tabId ?? null, opened };
  }

  #page(page: OwnedPage | undefined): ActivityPage | null {
    if (!page) {
      return null;
    }
    const live = page.tabId === null ? undefined : this.tabUrl(page.tabId);
    return { pageId: page.pageId, url: live ?? page.url };
  }
}
