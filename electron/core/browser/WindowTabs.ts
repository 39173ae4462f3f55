/** How a tab is placed when the router opens it through the browser itself (upstream's `new_page` cannot choose). */
export interface TabPlacement {
  url: string;
  /** Tab id of a tab whose window the new tab joins; null opens it in a new window of its own. */
  nextTo: string | null;
  background: boolean;
  /** The browser context to open it in (a session's isolated context); the default one when absent. */
  browserContextId?: string | undefined;
}

/**
 * What a window per session needs of the browser's own connection (`BrowserTabs`): opening a tab in a chosen window,
 * telling a tab's window, and closing a tab by its id.
 */
export interface WindowTabs {
  /** Opens a tab as placed and returns its Chrome tab id once the browser reports its page. */
  openTab(placement: TabPlacement): Promise<string>;
  /** The id of the window holding a tab, or null when it is gone. */
  windowOf(tabId: string): Promise<number | null>;
  close(tabId: string): Promise<boolean>;
}
