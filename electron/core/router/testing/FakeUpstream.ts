import { EventEmitter } from 'node:events';
import type { BrowserTab, TabDialog } from '../../browser/BrowserTab.js';
import type { BrowserTabsEvents } from '../../browser/BrowserTabs.js';
import type { ToolInfo, ToolResult } from '../../../../shared/protocol.js';
import { textResult } from '../../../../shared/toolResult.js';
import type { Upstream } from '../../upstream/UpstreamClient.js';
import type { TabPlacement } from '../../browser/WindowTabs.js';
import { Worker } from '../Worker.js';
import { openerFamily } from '../heldTabs.js';
import { snapshotText, type SnapshotNode } from '../../upstream/snapshotText.js';
import { joinReply, snapshotBlock } from '../../upstream/upstreamReply.js';

/**
 * A small stand-in for chrome-devtools-mcp in unit tests: a browser of tabs that several fake upstream processes
 * share, each with its own page ids, selected page and snapshot counter, answering in upstream's text formats with
 * their structured data (see `upstream/upstreamReply.ts`). It does only what the router's parts need; the real upstream is used by the integration tests.
 */

export interface FakeTab {
  readonly tabId: string;
  url: string;
  title: string;
  /** The window holding the tab: the first window unless the tab was placed elsewhere (or its opener was). */
  windowId: number;
  readonly openerTabId: string | null;
  /** The dialog its page shows: a fake upstream that never looked at the page before hangs on it, as upstream does. */
  dialog: TabDialog | null;
  /**
   * Its page shows a dialog the daemon's connection did not see open (it attached later): that connection never
   * heard from the page, and the page, with its opener family, does not respond.
   */
  unseenDialog: boolean;
  /**
   * It just opened: the daemon's connection has not heard from its page yet, which responds all the same from
   * `startsAt` (ms since the epoch) on.
   */
  fresh: boolean;
  startsAt: number;
  /** When the daemon's connection attached to its page (ms since the epoch): when it opened, unless a test says. */
  watchedSince: number;
}

/** The window a fake browser's first tabs, and the tabs upstream's `new_page` opens, are in. */
export const FIRST_WINDOW = 1;

/**
 * Tabs of one browser, seen by every fake upstream on it. It reports openings (with the opener) and closings as the
 * daemon's own browser connection does (`BrowserTabs`).
 */
export class FakeBrowser extends EventEmitter<BrowserTabsEvents> {
  readonly tabs: FakeTab[] = [];
  #nextTab = 1;
  #nextWindow = FIRST_WINDOW + 1;

  constructor(urls: readonly string[] = ['about:blank']) {
    super();
    for (const url of urls) {
      this.open(url);
    }
  }

  open(url: string, title = '', openerTabId: string | null = null, windowId?: number): FakeTab {
    const opener = this.tabs.find((candidate) => candidate.tabId === openerTabId);
    const tab: FakeTab = { tabId: `TAB${String(this.#nextTab++).padStart(4, '0')}`, url, title, windowId: windowId ?? opener?.windowId ?? FIRST_WINDOW, openerTabId, dialog: null, unseenDialog: false, fresh: false, startsAt: 0, watchedSince: Date.now() };
    this.tabs.push(tab);
    this.emit('opened', browserTab(tab));
    return tab;
  }

  /** The tab's page opens a dialog, as `alert()` does. */
  showDialog(tabId: string, type: TabDialog['type'] = 'alert'): void {
    const tab = this.tabs.find((candidate) => candidate.tabId === tabId);
    if (tab) {
      tab.dialog = { type };
      this.emit('dialog', browserTab(tab));
    }
  }

  /** The tab's page opened a dialog before the daemon's connection attached to it (see `FakeTab.unseenDialog`). */
  showUnseenDialog(tabId: string): void {
    const tab = this.tabs.find((candidate) => candidate.tabId === tabId);
    if (tab) {
      tab.unseenDialog = true;
    }
  }

  /**
   * The tab just opened: the daemon's connection has not heard from its page yet, which runs script `startsInMs`
   * from now (see `FakeTab.fresh`).
   */
  markFresh(tabId: string, startsInMs = 0): void {
    const tab = this.tabs.find((candidate) => candidate.tabId === tabId);
    if (tab) {
      tab.fresh = true;
      tab.startsAt = Date.now() + startsInMs;
    }
  }

  /**
   * Whether the tab's page runs a constant within `withinMs`: a page blocked by a dialog of its own or of its opener
   * family (taken to share its renderer) does not, and one whose renderer is still starting a page of the family does
   * once that page has started. A page that will not answer in time is said so at once.
   */
  responds(tabId: string, withinMs = Infinity): Promise<boolean> {
    const family = new Set(openerFamily(this.list(), tabId).map((member) => member.tabId));
    const members = this.tabs.filter((candidate) => family.has(candidate.tabId));
    const blocked = members.some((member) => member.dialog !== null || member.unseenDialog);
    const startsIn = Math.max(0, ...members.map((member) => member.startsAt - Date.now()));
    if (members.length === 0 || blocked || startsIn > withinMs) {
      return Promise.resolve(false);
    }
    return startsIn > 0 ? new Promise((resolve) => setTimeout(() => resolve(true), startsIn)) : Promise.resolve(true);
  }

  answerDialog(tabId: string): Promise<boolean> {
    const tab = this.tabs.find((candidate) => candidate.tabId === tabId);
    if (!tab?.dialog) {
      return Promise.resolve(false);
    }
    tab.dialog = null;
    this.emit('dialog', browserTab(tab));
    return Promise.resolve(true);
  }

  /** Removes a tab at once, as upstream's close_page does. */
  remove(tabId: string): void {
    const index = this.tabs.findIndex((tab) => tab.tabId === tabId);
    const [tab] = index === -1 ? [] : this.tabs.splice(index, 1);
    if (tab) {
      this.emit('closed', browserTab(tab));
    }
  }

  list(): BrowserTab[] {
    return this.tabs.map(browserTab);
  }

  close(tabId: string): Promise<boolean> {
    const known = this.tabs.some((tab) => tab.tabId === tabId);
    this.remove(tabId);
    return Promise.resolve(known);
  }

  openBlank(): Promise<string> {
    return Promise.resolve(this.open('about:blank').tabId);
  }

  openTab(placement: TabPlacement): Promise<string> {
    const anchor = this.tabs.find((tab) => tab.tabId === placement.nextTo);
    if (placement.nextTo !== null && !anchor) {
      return Promise.reject(new Error(`no tab ${placement.nextTo}`));
    }
    return Promise.resolve(this.open(placement.url, '', null, anchor?.windowId ?? this.#nextWindow++).tabId);
  }

  windowOf(tabId: string): Promise<number | null> {
    return Promise.resolve(this.tabs.find((tab) => tab.tabId === tabId)?.windowId ?? null);
  }
}

function browserTab(tab: FakeTab): BrowserTab {
  return { tabId: tab.tabId, pageTargetId: `PAGE-${tab.tabId}`, openerTabId: tab.openerTabId, url: tab.url, title: tab.title, dialog: tab.dialog, answers: !tab.unseenDialog && !tab.fresh, watchedSince: tab.watchedSince };
}

const PAGE_ID = { pageId: { type: 'number' } };

/** The tools the fake answers: the page tools carry `pageId`, as with upstream's page-id routing. */
export const FAKE_TOOLS: readonly ToolInfo[] = [
  { name: 'list_pages', inputSchema: { type: 'object', properties: {} } },
  { name: 'new_page', inputSchema: { type: 'object', properties: { url: { type: 'string' }, background: { type: 'boolean' } } } },
  { name: 'select_page', inputSchema: { type: 'object', properties: { ...PAGE_ID, bringToFront: { type: 'boolean' } } } },
  { name: 'close_page', inputSchema: { type: 'object', properties: PAGE_ID } },
  { name: 'get_tab_id', inputSchema: { type: 'object', properties: PAGE_ID } },
  { name: 'take_snapshot', inputSchema: { type: 'object', properties: { ...PAGE_ID, filePath: { type: 'string' } } } },
  { name: 'click', inputSchema: { type: 'object', properties: { ...PAGE_ID, uid: { type: 'string' } } } },
  { name: 'navigate_page', inputSchema: { type: 'object', properties: { ...PAGE_ID, url: { type: 'string' } } } },
  { name: 'list_extensions', inputSchema: { type: 'object', properties: {} } },
  { name: 'take_screenshot', inputSchema: { type: 'object', properties: PAGE_ID } },
  { name: 'handle_dialog', inputSchema: { type: 'object', properties: { ...PAGE_ID, action: { type: 'string' }, promptText: { type: 'string' } } } },
];

export interface Call {
  name: string;
  args: Record<string, unknown>;
}

export class FakeUpstream implements Upstream {
  /** Null as for a process that is not known; a test may give one. */
  pid: number | null = null;
  readonly closed: Promise<void>;
  /** Every call, in order. */
  readonly calls: Call[] = [];
  /** Calls that wait on a page's dialog (see `callTool`). */
  readonly hung: Call[] = [];
  /** Tabs this process has looked at (upstream sets up a page on its first page-scoped call). */
  readonly #seen = new Set<string>();
  /** URLs whose navigation fails after the tab opened, as a refused connection does. */
  readonly failingUrls = new Set<string>();
  #ids = new Map<string, number>();
  #nextId = 1;
  #selected: number | undefined;
  #nextSnapshot = 1;
  #snapshots = new Map<number, Set<string>>();
  #exit: () => void = () => undefined;

  constructor(
    readonly browser: FakeBrowser,
    readonly tools: readonly ToolInfo[] = FAKE_TOOLS,
  ) {
    this.closed = new Promise((resolve) => {
      this.#exit = resolve;
    });
  }

  listTools(): Promise<ToolInfo[]> {
    return Promise.resolve([...this.tools]);
  }

  /** This process's id for a tab, assigned when it first sees the tab. */
  pageIdOf(tab: FakeTab): number {
    let id = this.#ids.get(tab.tabId);
    if (id === undefined) {
      id = this.#nextId++;
      this.#ids.set(tab.tabId, id);
    }
    return id;
  }

  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    this.calls.push({ name, args });
    const tab = typeof args['pageId'] === 'number' ? this.#tabs().find((candidate) => this.pageIdOf(candidate) === args['pageId']) : undefined;
    if (tab?.dialog && !this.#seen.has(tab.tabId)) {
      // Upstream's first look at a page waits for its renderer, which a dialog blocks: the call ends once it closes.
      this.hung.push({ name, args });
      return new Promise((resolve) => {
        const closed = (changed: BrowserTab): void => {
          if (changed.tabId === tab.tabId && changed.dialog === null) {
            this.browser.off('dialog', closed);
            resolve(this.#answer(name, args));
          }
        };
        this.browser.on('dialog', closed);
      });
    }
    return Promise.resolve(this.#answer(name, args));
  }

  close(): Promise<void> {
    this.#exit();
    return Promise.resolve();
  }

  #answer(name: string, args: Record<string, unknown>): ToolResult {
    if (name === 'list_pages') {
      return this.#listed();
    }
    if (name === 'new_page') {
      const url = typeof args['url'] === 'string' ? args['url'] : 'about:blank';
      const tab = this.browser.open(url);
      this.#seen.add(tab.tabId);
      this.#selected = this.pageIdOf(tab);
      return this.failingUrls.has(url) ? textResult(`Error: net::ERR_CONNECTION_REFUSED at ${url}`, true) : this.#listed();
    }
    if (name === 'list_extensions') {
      return textResult('No extensions installed.');
    }
    const pageId = args['pageId'];
    const tab = this.#tabs().find((candidate) => this.pageIdOf(candidate) === pageId);
    if (typeof pageId !== 'number' || !tab) {
      return textResult('Error: No page found', true);
    }
    this.#seen.add(tab.tabId);
    return this.#onPage(name, pageId, tab, args);
  }

  #onPage(name: string, pageId: number, tab: FakeTab, args: Record<string, unknown>): ToolResult {
    switch (name) {
      case 'select_page':
        this.#selected = pageId;
        return this.#listed();
      case 'close_page':
        return this.#closePage(pageId, tab);
      case 'get_tab_id':
        return { content: [{ type: 'text', text: `Tab ID: ${tab.tabId}` }], structuredContent: { message: `Tab ID: ${tab.tabId}`, tabId: tab.tabId } };
      case 'take_snapshot': {
        const id = this.#nextSnapshot++;
        this.#snapshots.set(pageId, new Set([`${id}_0`, `${id}_1`]));
        const root: SnapshotNode = { id: `${id}_0`, role: 'RootWebArea', name: tab.title, url: tab.url, children: [{ id: `${id}_1`, role: 'button', name: 'Go' }] };
        return { content: [{ type: 'text', text: snapshotBlock(snapshotText(root, false)) }], structuredContent: { snapshot: root } };
      }
      case 'click': {
        const uid = typeof args['uid'] === 'string' ? args['uid'] : '';
        if (!this.#snapshots.get(pageId)?.has(uid)) {
          return textResult(`Error: Element uid "${uid}" not found on page ${pageId}.`, true);
        }
        return { content: [{ type: 'text', text: 'Successfully clicked on the element' }], structuredContent: { message: 'Successfully clicked on the element' } };
      }
      case 'take_screenshot':
        return textResult(`Took a screenshot of page ${pageId}.`);
      case 'handle_dialog':
        if (!tab.dialog) {
          return textResult('Error: No open dialog found', true);
        }
        void this.browser.answerDialog(tab.tabId);
        return this.#listed('Successfully accepted the dialog');
      case 'navigate_page':
        if (typeof args['url'] === 'string' && this.failingUrls.has(args['url'])) {
          return this.#listed(`Unable to navigate in the selected page: net::ERR_CONNECTION_REFUSED at ${args['url']}.`);
        }
        tab.url = typeof args['url'] === 'string' ? args['url'] : tab.url;
        this.#snapshots.delete(pageId);
        return this.#listed(`Successfully navigated to ${tab.url}.`);
      default:
        return textResult(`Error: the fake upstream has no tool ${name}`, true);
    }
  }

  #closePage(pageId: number, tab: FakeTab): ToolResult {
    if (this.#tabs().length === 1) {
      return this.#listed('The last open page cannot be closed. It is fine to keep it open.');
    }
    this.browser.remove(tab.tabId);
    if (this.#selected !== pageId) {
      return this.#listed();
    }
    const first = this.#tabs()[0];
    this.#selected = first ? this.pageIdOf(first) : undefined;
    return this.#listed(undefined, `Note: the previously selected page was closed. Page ${String(this.#selected)} is now selected.`);
  }

  /** A reply with the page list, as upstream writes it: message, selection note, then `## Pages`; with its data. */
  #listed(message?: string, note?: string): ToolResult {
    const pages = this.#tabs().map((tab) => ({ id: this.pageIdOf(tab), url: tab.url, title: tab.title, selected: this.pageIdOf(tab) === this.#selected }));
    const text = joinReply([message, note, this.#pageList()]);
    return { content: [{ type: 'text', text }], structuredContent: { ...(message === undefined ? {} : { message }), pages } };
  }

  #tabs(): FakeTab[] {
    return this.browser.tabs;
  }

  #pageList(): string {
    const lines = this.#tabs().map((tab) => {
      const id = this.pageIdOf(tab);
      const body = tab.title ? `${tab.title} (${tab.url})` : tab.url;
      return `${id}: ${body}${id === this.#selected ? ' [selected]' : ''}`;
    });
    return ['## Pages', ...lines].join('\n');
  }
}

/** A worker whose upstream is `upstream`, started on its first call. */
export function fakeWorker(upstream: FakeUpstream, index = 0): Worker {
  return new Worker(index, 1, { isPaused: () => false, onChange: () => undefined, start: () => Promise.resolve(upstream) });
}
