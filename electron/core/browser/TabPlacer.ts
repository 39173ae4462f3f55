import { TabmuxError } from '../../../shared/errors.js';
import type { BrowserTab } from './BrowserTab.js';
import type { CdpConnection } from './CdpConnection.js';
import type { TabPlacement } from './WindowTabs.js';

/** What placing a tab needs of the tab list it opens the tab in (`BrowserTabs`). */
export interface PlacedTabs {
  get(tabId: string): BrowserTab | undefined;
  windowOf(tabId: string): Promise<number | null>;
  close(tabId: string): Promise<boolean>;
  /** The tab holding a page target, once the browser reported it; undefined when it did not in time. */
  whenPageOpened(pageTargetId: string): Promise<BrowserTab | undefined>;
}

/**
 * Opens tabs for the tab list in a new window or in the window of a given tab, one at a time (see
 * `BrowserTabs.openTab` for why and how).
 */
export class TabPlacer {
  readonly #connection: CdpConnection;
  readonly #tabs: PlacedTabs;
  /** Tabs are placed one at a time: placing one in a window makes that window the browser's last active one first. */
  #placing: Promise<unknown> = Promise.resolve();

  constructor(connection: CdpConnection, tabs: PlacedTabs) {
    this.#connection = connection;
    this.#tabs = tabs;
  }

  /** Opens a tab as placed, after the placings asked for before it; its tab id once the browser reports its page. */
  open(placement: TabPlacement): Promise<string> {
    const run = this.#placing.then(() => this.#place(placement));
    this.#placing = run.catch(() => undefined);
    return run;
  }

  async #place({ url, nextTo, background, browserContextId }: TabPlacement): Promise<string> {
    if (nextTo === null) {
      return this.#create(url, true, background, browserContextId);
    }
    const anchor = this.#tabs.get(nextTo);
    const windowId = await this.#tabs.windowOf(nextTo);
    if (!anchor || windowId === null) {
      throw new TabmuxError('upstream_failed', `tab ${nextTo} is gone, so its window cannot take a new tab; try again`);
    }
    for (const reactivate of [false, true]) {
      if (reactivate) {
        await this.#reactivate(windowId);
      }
      await this.#connection.send('Target.activateTarget', { targetId: anchor.pageTargetId ?? anchor.tabId });
      const tabId = await this.#create(url, false, background, browserContextId);
      if ((await this.#tabs.windowOf(tabId)) === windowId) {
        return tabId;
      }
      await this.#tabs.close(tabId);
    }
    throw new TabmuxError('upstream_failed', "the new tab kept opening outside the session's window (another window became active meanwhile); try again");
  }

  async #create(url: string, newWindow: boolean, background: boolean, browserContextId: string | undefined): Promise<string> {
    const { targetId } = await this.#connection.send('Target.createTarget', { url, newWindow, background, ...(browserContextId === undefined ? {} : { browserContextId }) });
    const tab = await this.#tabs.whenPageOpened(targetId);
    if (!tab) {
      await this.#tabs.close(targetId);
      throw new TabmuxError('upstream_failed', 'the browser did not report the tab it opened; try again');
    }
    return tab.tabId;
  }

  /** Minimizes a window and puts it back as it was (normal, maximized or full screen), so activating it counts again. */
  async #reactivate(windowId: number): Promise<void> {
    const { bounds } = await this.#connection.send('Browser.getWindowBounds', { windowId });
    const state = bounds.windowState === undefined || bounds.windowState === 'minimized' ? 'normal' : bounds.windowState;
    await this.#connection.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'minimized' } });
    await this.#connection.send('Browser.setWindowBounds', { windowId, bounds: { windowState: state } });
  }
}
