import { EventEmitter } from 'node:events';
import type { Protocol } from 'devtools-protocol';
import type { CDPSession } from 'puppeteer-core/internal/api/CDPSession.js';
import type { BrowserTab } from './BrowserTab.js';
import type { TabPlacement } from './WindowTabs.js';
import type { CdpConnection } from './CdpConnection.js';
import { PageCommands } from './PageCommands.js';
import { TabFrames } from './TabFrames.js';
import { TabPlacer } from './TabPlacer.js';
import { TabCrashes } from './TabCrashes.js';
import { whenTabEvent } from './whenTabEvent.js';
import { withDeadline } from '../../../shared/withDeadline.js';

/** The targets the daemon watches: tabs, and the page each one holds. */
export const DISCOVERED_TARGETS: Protocol.Target.TargetFilter = [{ type: 'tab' }, { type: 'page' }];

export interface BrowserTabsEvents {
  /** A tab got its page: it is usable, and its opener (if any) is known. */
  opened: [tab: BrowserTab];
  closed: [tab: BrowserTab];
  /** A tab's page opened or closed a dialog (its `dialog` says which). */
  dialog: [tab: BrowserTab];
  /** A tab's page crashed, or runs again after a crash (its `crashed` says which). */
  crashed: [tab: BrowserTab];
}

/**
 * How long a lookup of the tab holding a frame waits for a page the browser has not reported yet, or for a frame it
 * has not learned of: a download can begin in a tab opened a moment ago.
 */
const FRAME_LOOKUP_MS = 3_000;

/**
 * The tabs of one browser, learned from the daemon's own CDP connection, never from text a page can write. It
 * auto-attaches to tab targets (no domain is enabled on them) to learn which page target each tab holds; page targets
 * carry the opener. On each page it enables the Page domain, only to hear of JavaScript dialogs: a dialog blocks its
 * page's renderer, so the router must know of it before it asks upstream anything about that page. Every attached
 * target is let run at once.
 */
export class BrowserTabs extends EventEmitter<BrowserTabsEvents> {
  readonly #tabs = new Map<string, BrowserTab>();
  readonly #tabOfPage = new Map<string, string>();
  /** Tab id -> the flattened CDP session of its page on this connection (auto-attached; only Page is enabled). */
  readonly #pageSessions = new Map<string, string>();
  /** Openers reported for page targets whose tab is not known yet. */
  readonly #pendingOpeners = new Map<string, string>();
  readonly #connection: CdpConnection;
  readonly #waiters = new Map<string, Array<(tab: BrowserTab) => void>>();
  readonly #frames: TabFrames;
  readonly #pages: PageCommands;
  readonly #placer: TabPlacer;
  readonly #crashes: TabCrashes;

  private constructor(connection: CdpConnection) {
    super();
    this.#connection = connection;
    this.#frames = new TabFrames(connection, this.#tabOfPage, this.#pageSessions);
    this.#pages = new PageCommands(connection, this.#pageSessions);
    this.#placer = new TabPlacer(connection, {
      get: (tabId) => this.#tabs.get(tabId),
      windowOf: (tabId) => this.windowOf(tabId),
      close: (tabId) => this.close(tabId),
      whenPageOpened: (pageTargetId) => this.#whenPageOpened(pageTargetId),
    });
    this.#crashes = new TabCrashes(connection, { tabs: this.#tabs, tabOfPage: this.#tabOfPage, pageSessions: this.#pageSessions }, (tab) => this.emit('crashed', tab));
  }

  static async watch(connection: CdpConnection): Promise<BrowserTabs> {
    const tabs = new BrowserTabs(connection);
    await tabs.#start();
    return tabs;
  }

  async #start(): Promise<void> {
    const connection = this.#connection;
    connection.on('Target.attachedToTarget', (event: Protocol.Target.AttachedToTargetEvent) => this.#onTabAttached(event));
    connection.on('Target.targetInfoChanged', (event: Protocol.Target.TargetInfoChangedEvent) => this.#onInfo(event.targetInfo));
    connection.on('Target.targetDestroyed', (event: Protocol.Target.TargetDestroyedEvent) => this.#onDestroyed(event.targetId));
    await connection.send('Target.setDiscoverTargets', { discover: true, filter: DISCOVERED_TARGETS });
    await connection.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true, filter: [{ type: 'tab' }] });
  }

  #onTabAttached(event: Protocol.Target.AttachedToTargetEvent): void {
    const info = event.targetInfo;
    if (info.type !== 'tab') {
      return;
    }
    const session = this.#connection.session(event.sessionId);
    if (!session) {
      return;
    }
    const tab: BrowserTab = {
      tabId: info.targetId,
      pageTargetId: null,
      openerTabId: null,
      url: info.url,
      title: info.title,
      dialog: null,
      answers: false,
      watchedSince: Date.now(),
      browserContextId: info.browserContextId,
    };
    this.#tabs.set(tab.tabId, tab);
    session.on('Target.attachedToTarget', (child: Protocol.Target.AttachedToTargetEvent) => this.#onPageAttached(tab, child));
    session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }).catch(() => undefined);
    session.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
  }

  #onPageAttached(tab: BrowserTab, event: Protocol.Target.AttachedToTargetEvent): void {
    const page = event.targetInfo;
    if (page.type !== 'page') {
      return;
    }
    const first = tab.pageTargetId === null;
    if (tab.pageTargetId !== null) {
      // The tab swapped its page (a prerendered page was activated): popups of the new page name the new id.
      this.#tabOfPage.delete(tab.pageTargetId);
    }
    tab.pageTargetId = page.targetId;
    tab.url = page.url || tab.url;
    tab.title = page.title || tab.title;
    this.#tabOfPage.set(page.targetId, tab.tabId);
    this.#pageSessions.set(tab.tabId, event.sessionId);
    this.#frames.found();
    const session = this.#connection.session(event.sessionId);
    if (session) {
      this.#frames.watch(tab.tabId, session);
      this.#watchDialogs(tab, event.sessionId, session);
      this.#crashes.watch(tab, event.sessionId, session);
      this.#frames.caughtUp(tab.tabId, session, FRAME_LOOKUP_MS);
      // An attached popup waits to run until the auto-attaching clients let it (and its opener's `window.open` waits
      // with it). Commands on a session run in order: this connection lets it run only once the Page domain is on.
      session.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    }
    if (!first) {
      return;
    }
    const opener = page.openerId ?? this.#pendingOpeners.get(page.targetId);
    this.#pendingOpeners.delete(page.targetId);
    tab.openerTabId = opener === undefined ? null : (this.#tabOfPage.get(opener) ?? null);
    this.emit('opened', tab);
    for (const resolve of this.#waiters.get(tab.tabId) ?? []) {
      resolve(tab);
    }
    this.#waiters.delete(tab.tabId);
  }

  /**
   * Follows the dialogs of a tab's page. A dialog that opened before `Page.enable` reached the page (it was open before
   * the daemon attached, or another client let a popup run first) is never reported, and the page does not answer
   * `Page.enable` until it closes: `answers` stays false meanwhile. A command the browser gave up on (the connection's
   * timeout) is sent again while the page is there.
   */
  #watchDialogs(tab: BrowserTab, sessionId: string, session: CDPSession): void {
    tab.dialog = null;
    tab.answers = false;
    tab.watchedSince = Date.now();
    // A tab that swapped its page follows the new page only.
    const current = (): boolean => this.#pageSessions.get(tab.tabId) === sessionId;
    session.on('Page.javascriptDialogOpening', (event: Protocol.Page.JavascriptDialogOpeningEvent) => {
      if (current()) {
        tab.dialog = { type: event.type };
        this.emit('dialog', tab);
      }
    });
    session.on('Page.javascriptDialogClosed', () => {
      if (current() && tab.dialog !== null) {
        tab.dialog = null;
        this.emit('dialog', tab);
      }
    });
    const enable = (): void => {
      session.send('Page.enable').then(
        () => {
          if (current()) {
            tab.answers = true;
          }
        },
        (error: unknown) => {
          if (!current() || session.detached || !this.#tabs.has(tab.tabId)) {
            return;
          }
          if (error instanceof Error && /timed out/i.test(error.message)) {
            enable();
          } else {
            // The page answered, with a refusal: it is not stuck.
            tab.answers = true;
          }
        },
      );
    };
    enable();
  }

  /**
   * The tab whose page holds a frame, from the browser's own ids: a page target's id names its main frame, and its
   * iframes are known from its Page events. Frames that came before the daemon attached are looked up in every page's
   * frame tree; a frame of a page the browser has not reported yet is waited for, up to `waitMs`. Undefined when no
   * tab holds it (a worker's request, a frame already gone).
   */
  tabOfFrame(frameId: string, waitMs = FRAME_LOOKUP_MS): Promise<string | undefined> {
    return this.#frames.tabOf(frameId, waitMs);
  }

  /**
   * Accepts or dismisses the dialog a tab's page shows, through the daemon's own connection. Returns false when the
   * tab shows none (any more).
   */
  async answerDialog(tabId: string, accept: boolean, promptText?: string): Promise<boolean> {
    if (!this.#tabs.get(tabId)?.dialog) {
      return false;
    }
    return this.#pages.answerDialog(tabId, accept, promptText);
  }

  /**
   * Whether a tab's page runs script within `withinMs`: a page whose renderer a dialog blocks (its own, or one of a
   * page sharing its renderer) does not. The probe evaluates a constant, which no page can observe.
   */
  responds(tabId: string, withinMs: number): Promise<boolean> {
    return this.#pages.responds(tabId, withinMs);
  }

  /**
   * Whether a tab's page gave no answer at all, not even an error, to a constant asked of it within `forMs`: its
   * renderer's main thread is busy the whole time (a script that never yields, or a dialog). False for a tab that is
   * not known.
   */
  silent(tabId: string, forMs: number): Promise<boolean> {
    return this.#pages.silent(tabId, forMs);
  }

  /**
   * Whether the browser itself answers within `withinMs`: a command its own process handles (`Browser.getVersion`),
   * whatever its pages do. An error is an answer too.
   */
  browserAnswers(withinMs: number): Promise<boolean> {
    const answered = this.#connection.send('Browser.getVersion').then(
      () => true,
      () => true,
    );
    return withDeadline(answered, withinMs, false);
  }

  #onInfo(info: Protocol.Target.TargetInfo): void {
    const tabId = info.type === 'tab' ? info.targetId : this.#tabOfPage.get(info.targetId);
    const tab = tabId === undefined ? undefined : this.#tabs.get(tabId);
    if (!tab) {
      if (info.type === 'page' && info.openerId !== undefined) {
        this.#pendingOpeners.set(info.targetId, info.openerId);
      }
      return;
    }
    if (info.type === 'page') {
      tab.url = info.url;
      tab.title = info.title;
    }
  }

  #onDestroyed(targetId: string): void {
    const tab = this.#tabs.get(targetId);
    this.#pendingOpeners.delete(targetId);
    if (!tab) {
      return;
    }
    this.#tabs.delete(targetId);
    this.#pageSessions.delete(targetId);
    this.#frames.forget(targetId);
    if (tab.pageTargetId !== null) {
      this.#tabOfPage.delete(tab.pageTargetId);
    }
    this.emit('closed', tab);
  }

  /**
   * Ends the script running in a tab's page (a busy loop, a long synchronous call) on this connection, outside any
   * upstream worker: `Runtime.terminateExecution` interrupts the page's JavaScript even while it never yields. The
   * page stays open and usable. False when the tab or its page is unknown or the browser refused.
   */
  stopScripts(tabId: string): Promise<boolean> {
    return this.#pages.stopScripts(tabId);
  }

  /**
   * Gives a tab's page a viewport of `width` x `height` CSS pixels by emulation on this connection, leaving its window
   * as it is (other tabs share the window). The override lasts while the daemon stays attached to the page, across
   * navigations. False when the tab or its page is unknown or the browser refused.
   */
  emulateViewport(tabId: string, width: number, height: number): Promise<boolean> {
    return this.#pages.emulateViewport(tabId, width, height);
  }

  get(tabId: string): BrowserTab | undefined {
    return this.#tabs.get(tabId);
  }

  /** Tabs that hold a page (the browser's own UI surfaces are tab targets without one). */
  list(): BrowserTab[] {
    return [...this.#tabs.values()].filter((tab) => tab.pageTargetId !== null);
  }

  /** Resolves once the tab's page is known (a tab upstream just opened may not have reported it yet). */
  whenOpened(tabId: string, timeoutMs = 5000): Promise<BrowserTab | undefined> {
    const known = this.#tabs.get(tabId);
    if (known?.pageTargetId) {
      return Promise.resolve(known);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      const waiters = this.#waiters.get(tabId) ?? [];
      waiters.push((tab) => {
        clearTimeout(timer);
        resolve(tab);
      });
      this.#waiters.set(tabId, waiters);
    });
  }

  async windowOf(tabId: string): Promise<number | null> {
    try {
      const { windowId } = await this.#connection.send('Browser.getWindowForTarget', { targetId: tabId });
      return windowId;
    } catch {
      return null;
    }
  }

  /** Opens a blank background tab (so closing a session's tabs never closes the browser's last window). */
  async openBlank(): Promise<string> {
    const { targetId } = await this.#connection.send('Target.createTarget', { url: 'about:blank', background: true });
    return targetId;
  }

  /**
   * Opens a tab in a new window, or in the window of `nextTo`. `Target.createTarget` can open a new window but not
   * choose an existing one: it uses the browser's last active window, so the window is made that first (which brings
   * `nextTo` to the front of its window and the window to the front). Placings run one at a time. A browser that did
   * not take the activation (headless Chrome ignores activating a window it still counts as active) gets its window
   * minimized and restored, which it does take, and one more try; a tab that still lands elsewhere is closed and
   * refused rather than left in someone else's window.
   */
  openTab(placement: TabPlacement): Promise<string> {
    return this.#placer.open(placement);
  }

  /** The tab holding a page target, once the browser reported it. */
  #whenPageOpened(pageTargetId: string, timeoutMs = 5000): Promise<BrowserTab | undefined> {
    const holds = (tab: BrowserTab): boolean => tab.pageTargetId === pageTargetId || tab.tabId === pageTargetId;
    const known = this.list().find(holds);
    return known ? Promise.resolve(known) : whenTabEvent(this, 'opened', holds, timeoutMs).promise;
  }

  /**
   * Loads `url` in a tab whose page crashed, on this connection (see `TabCrashes.reload`): the commands the crashed
   * page holds are answered once it runs again. True once the browser started loading it.
   */
  reloadCrashed(tabId: string, url: string): Promise<boolean> {
    return this.#crashes.reload(tabId, url);
  }

  /**
   * Closes a tab through the browser: works whatever state the upstream workers are in. Resolves once the browser
   * reports the tab gone (`closeTarget` only starts closing it), so a window whose last tab it was is gone too.
   */
  async close(tabId: string): Promise<boolean> {
    const gone = this.#tabs.has(tabId) ? whenTabEvent(this, 'closed', (tab) => tab.tabId === tabId, 5000) : { promise: Promise.resolve(undefined), cancel: () => undefined };
    try {
      await this.#connection.send('Target.closeTarget', { targetId: tabId });
    } catch {
      gone.cancel();
      return false;
    }
    await gone.promise;
    return true;
  }
}
