import type { PageOrigin, SessionInfo, SessionLastCall, SessionPage } from '../../../shared/model.js';
import { newDownloadTally, type DownloadTally } from '../browser/BrowserDownloads.js';
import { shownUrl } from '../../../shared/shownUrl.js';

export interface OwnedPage {
  pageId: number;
  /** Chrome's tab id: the same in every upstream process, so pages can be found again after a worker restarts. */
  tabId: string | null;
  origin: PageOrigin;
  url: string;
  title: string;
  /** Epoch of the latest snapshot of this page, null when it has none or a navigation invalidated it. */
  snapshotEpoch: number | null;
  snapshotUids: ReadonlySet<string>;
  /** When the session last made this its current page; picks the next current page after a close. */
  lastSelectedAt: number;
  /**
   * The CPU slowdown the session asked `emulate` for on this page (1: none): a page slowed 6 times may well run a
   * script 6 times as long without a break, so the stuck page watch waits as many times longer on it.
   */
  cpuSlowdown?: number;
}

/** Finds a live session by id (undefined once it has ended). */
export type SessionLookup = (id: string) => Session | undefined;

/** One agent session: its pages on its worker, its snapshot epoch, and bookkeeping for the reaper. */
export class Session {
  readonly pages = new Map<number, OwnedPage>();
  currentPageId: number | null = null;
  epoch = 0;
  lastUsedAt: number;
  paused = false;
  /** Notes for the agent, prepended to its next tool result (for example: its pages were lost in a crash). */
  notes: string[] = [];
  /** Connection ids bound to this session (at most one; kept as a set so a stale unbind is harmless). */
  boundBy: string | null = null;
  /** Set once the session is closed: a call still running for it closes whatever tabs it leaves behind. */
  ended = false;
  /**
   * Chrome tab ids of tabs the session's pages opened on their own (popups opened after a call returned). The browser
   * reported them; they become pages of the session once its worker sees them, and close with it either way.
   */
  readonly pendingTabs = new Set<string>();
  /**
   * The session's isolated contexts (`new_page` with `isolatedContext`): the agent's name -> the browser context the
   * daemon made for it. They are the session's alone and are disposed when it ends.
   */
  readonly contexts = new Map<string, string>();
  /** The latest answered call, whatever became of it (shown in the dashboard's session list). */
  lastCall: SessionLastCall | null = null;
  /** While the session moves to another worker (see `WorkerPool.moveOffBusy`): done once it serves from there. */
  moving: Promise<void> | null = null;
  /**
   * Sessions this one no longer shares a worker with, once they shared one that a page of theirs grew past the
   * profile's memory limit (see `WorkerMemoryWatch`): which of them has the page is not known.
   */
  readonly apart = new Set<string>();
  /** What the session's downloads hold, against the profile's limits for one session (see BrowserDownloads). */
  readonly downloads: DownloadTally = newDownloadTally();
  /** Whether the session was told its downloads reached a limit: it is told once, not of every download after. */
  downloadLimitTold = false;

  constructor(
    readonly id: string,
    readonly short: string,
    public label: string | null,
    /** The worker that serves the session; it changes only when the session moves off a busy worker. */
    public worker: number,
    readonly createdAt: number,
  ) {
    this.lastUsedAt = createdAt;
  }

  get owned(): boolean {
    return this.boundBy !== null;
  }

  get currentPage(): OwnedPage | undefined {
    return this.currentPageId === null ? undefined : this.pages.get(this.currentPageId);
  }

  addPage(pageId: number, origin: PageOrigin, url = '', title = ''): OwnedPage {
    const page: OwnedPage = { pageId, tabId: null, origin, url, title, snapshotEpoch: null, snapshotUids: new Set(), lastSelectedAt: 0 };
    this.pages.set(pageId, page);
    return page;
  }

  select(pageId: number): void {
    const page = this.pages.get(pageId);
    if (page) {
      this.currentPageId = pageId;
      page.lastSelectedAt = Date.now();
    }
  }

  /** Removes a page; when it was current, the most recently selected remaining page becomes current. */
  removePage(pageId: number): void {
    this.pages.delete(pageId);
    if (this.currentPageId !== pageId) {
      return;
    }
    let next: OwnedPage | undefined;
    for (const page of this.pages.values()) {
      if (!next || page.lastSelectedAt > next.lastSelectedAt) {
        next = page;
      }
    }
    this.currentPageId = next?.pageId ?? null;
  }

  /** Forgets every page (their tabs are gone) and returns them as `<id> (<url>)`, for a note to the agent. */
  dropAllPages(): string[] {
    const lost = [...this.pages.values()].map((page) => `${page.pageId} (${page.url || 'no url'})`);
    this.pages.clear();
    this.currentPageId = null;
    return lost;
  }

  /** Starts a new snapshot epoch for a page; tokens of every earlier epoch stop being accepted. */
  newEpoch(page: OwnedPage, uids: ReadonlySet<string>): number {
    this.epoch++;
    page.snapshotEpoch = this.epoch;
    page.snapshotUids = uids;
    return this.epoch;
  }

  pageForEpoch(epoch: number): OwnedPage | undefined {
    for (const page of this.pages.values()) {
      if (page.snapshotEpoch === epoch) {
        return page;
      }
    }
    return undefined;
  }

  info(counts: { queued: number; running: number }): SessionInfo {
    const pages: SessionPage[] = [...this.pages.values()].map((page) => ({
      pageId: page.pageId,
      url: shownUrl(page.url),
      title: shownUrl(page.title),
      origin: page.origin,
      current: page.pageId === this.currentPageId,
    }));
    return {
      id: this.id,
      label: this.label,
      createdAt: this.createdAt,
      lastUsedAt: this.lastUsedAt,
      owned: this.owned,
      paused: this.paused,
      activity: this.paused ? 'paused' : counts.running + counts.queued > 0 ? 'busy' : 'idle',
      worker: this.worker,
      currentPageId: this.currentPageId,
      pages,
      epoch: this.epoch,
      queued: counts.queued,
      running: counts.running,
      lastCall: this.lastCall,
    };
  }
}
