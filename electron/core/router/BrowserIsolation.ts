import type { ContextIsolation, WindowIsolation } from './PageAllocator.js';
import type { ContextSource } from './sessionContexts.js';
import type { TabSource } from './SessionTabs.js';
import type { TabIdentity } from './TabIdentity.js';

export interface BrowserIsolationOptions {
  /** The browser connection followed now (`SessionTabs.source`). */
  source: () => TabSource | undefined;
  /** Whether upstream tells a page's Chrome tab id, without which a tab opened by the browser is not found in a worker. */
  tabIds: () => boolean;
  tabs: TabIdentity;
}

/**
 * What window and context isolation open sessions' tabs through: the daemon's own browser connection rather than
 * upstream, and the browser contexts made on that connection for sessions' isolated contexts. A new browser
 * connection brings its own contexts (see `follow`).
 */
export class BrowserIsolation {
  readonly windows: WindowIsolation;
  readonly isolatedContexts: ContextIsolation;
  /** The browser contexts of sessions' isolated contexts, on the current browser connection. */
  #contexts: ContextSource | undefined;

  constructor({ source, tabIds, tabs }: BrowserIsolationOptions) {
    const windows: WindowIsolation = {
      // Finding a tab in a worker takes upstream's tab ids; without them, tabs open as upstream opens them.
      browser: () => (tabIds() ? source() : undefined),
      pageIdOfTab: async (worker, tabId) => (await tabs.pageIdsByTab(worker)).get(tabId),
    };
    this.windows = windows;
    this.isolatedContexts = {
      browser: () => {
        const tabSource = windows.browser();
        const made = this.#contexts;
        return tabSource && made ? { tabs: tabSource, contexts: made } : undefined;
      },
      pageIdOfTab: windows.pageIdOfTab,
    };
  }

  /** The browser contexts on the current connection; undefined without one. */
  get contexts(): ContextSource | undefined {
    return this.#contexts;
  }

  /** The contexts of a new browser connection, or undefined when there is none. */
  follow(contexts: ContextSource | undefined): void {
    this.#contexts = contexts;
  }
}
