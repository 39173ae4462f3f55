import type { BrowserTab } from '../browser/BrowserTab.js';

/** The events of the browser's tabs a router follows (see `BrowserTabsEvents`). */
export type TabEvent = 'opened' | 'closed' | 'crashed';

/** What tab identity reads of the browser's own connection (`BrowserTabs`): its tabs, with their dialogs. */
export interface TabView {
  list(): BrowserTab[];
  /** One tab by its id, page or not, without copying the list (see `BrowserTabs.get`). */
  get?(tabId: string): BrowserTab | undefined;
  /** Accepts or dismisses a tab's dialog through the browser's own connection (see `BrowserTabs.answerDialog`). */
  answerDialog?(tabId: string, accept: boolean, promptText?: string): Promise<boolean>;
  /** Whether a tab's page runs script within `withinMs` (see `BrowserTabs.responds`). */
  responds?(tabId: string, withinMs: number): Promise<boolean>;
  /** Whether a tab's page gave no answer at all within `forMs` (see `BrowserTabs.silent`). */
  silent?(tabId: string, forMs: number): Promise<boolean>;
  /** Whether the browser itself answers within `withinMs` (see `BrowserTabs.browserAnswers`). */
  browserAnswers?(withinMs: number): Promise<boolean>;
  /** Ends the script running in a tab's page, outside the workers (see `BrowserTabs.stopScripts`). */
  stopScripts?(tabId: string): Promise<boolean>;
  /** Emulates a viewport for one tab's page, its window left as it is (see `BrowserTabs.emulateViewport`). */
  emulateViewport?(tabId: string, width: number, height: number): Promise<boolean>;
  /** Loads a url in a tab whose page crashed, through the browser's own connection (see `BrowserTabs.reloadCrashed`). */
  reloadCrashed?(tabId: string, url: string): Promise<boolean>;
  /** Follows tabs that open, close, or whose page crashed or runs again (`BrowserTabs`' events). */
  on?(event: TabEvent, listener: (tab: BrowserTab) => void): unknown;
  off?(event: TabEvent, listener: (tab: BrowserTab) => void): unknown;
  /** Closes a tab through the browser's own connection (see `BrowserTabs.close`). */
  close?(tabId: string): Promise<boolean>;
}
