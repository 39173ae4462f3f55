import type { Protocol } from 'devtools-protocol';

/**
 * One tab of the browser as the browser itself reports it. `tabId` is Chrome's tab target id: the id upstream's
 * `get_tab_id` returns, the same in every worker process, and what ownership is keyed by.
 */
export interface BrowserTab {
  tabId: string;
  /** The tab's page target (what `openerId` of a popup names). */
  pageTargetId: string | null;
  /** The tab whose page opened this one (a popup, `target=_blank`), whenever it opened. */
  openerTabId: string | null;
  url: string;
  title: string;
  /** The JavaScript dialog its page shows and waits on, if any. */
  dialog: TabDialog | null;
  /** The browser context the tab is in: the default one, or one the daemon made for a session's isolated context. */
  browserContextId?: string | undefined;
  /**
   * Whether the page answered the daemon's connection since it attached. A page that has not is stuck or still
   * starting: a dialog opened before the daemon attached, or a busy page, blocks the page's renderer, and so anything
   * asked of the page (upstream's first look at it included) waits as long.
   */
  answers: boolean;
  /**
   * When the daemon's connection attached to the tab's current page (ms since the epoch). A page that opened a moment
   * ago may not have answered yet only because it is still starting: on a loaded machine its renderer (its own, or
   * its opener's, busy with script) can take seconds to get to it.
   */
  watchedSince: number;
  /**
   * How the page's renderer process ended, as the browser reported it, while the tab shows Chrome's crash page: nothing
   * asked of the page is answered until it loads again (a reload or a navigation). Null or absent while it runs.
   */
  crashed?: TabCrash | null | undefined;
}

/** A tab's page whose renderer process ended, from the browser's `Target.targetCrashed` event. */
export interface TabCrash {
  /** Chrome's word for how it ended: `crashed`, `oom` (out of memory), `killed`, `abnormal`... */
  status: string;
  errorCode: number;
  /** When the browser reported it (ms since the epoch). */
  at: number;
}

/**
 * A JavaScript dialog (alert, confirm, prompt, beforeunload) a tab's page shows. Only its kind: the message is the
 * page's own text. Each opening is a new object.
 */
export interface TabDialog {
  type: Protocol.Page.DialogType;
}
