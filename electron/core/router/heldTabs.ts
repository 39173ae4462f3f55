import type { BrowserTab } from '../browser/BrowserTab.js';

/**
 * The tab and every tab linked to it by openers, either way (its opener, the opener's opener, its popups and theirs).
 * A page and the pages it opened share a renderer when they are same-site, so a dialog in one of them blocks them
 * all; a cross-site or `noopener` one does not, but nothing structural tells them apart, so all are counted.
 */
export function openerFamily(tabs: readonly BrowserTab[], tabId: string): BrowserTab[] {
  const byId = new Map(tabs.map((tab) => [tab.tabId, tab]));
  const family = new Set<string>();
  const stack = [tabId];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (family.has(next) || !byId.has(next)) {
      continue;
    }
    family.add(next);
    const opener = byId.get(next)?.openerTabId;
    if (opener) {
      stack.push(opener);
    }
    for (const tab of tabs) {
      if (tab.openerTabId === next) {
        stack.push(tab.tabId);
      }
    }
  }
  return [...family].flatMap((id) => byId.get(id) ?? []);
}

/** How long a page that may be blocked may take to run a constant before it counts as blocked. */
export const RESPONDS_WITHIN_MS = 500;

/**
 * How long after the daemon's connection attached to a page that page may take to run its first constant before it
 * counts as blocked: on a loaded machine a new page's renderer (its own, or one it shares with a busy opener) can take
 * seconds to get to it.
 */
export const STARTS_WITHIN_MS = 5000;

/**
 * How long a page may take to run a constant now before it counts as held: `RESPONDS_WITHIN_MS`, and a page that
 * opened a moment ago until `STARTS_WITHIN_MS` after the daemon's connection attached to it (it is starting).
 */
export function respondsWithin(tab: BrowserTab, now = Date.now()): number {
  return Math.max(RESPONDS_WITHIN_MS, tab.watchedSince + STARTS_WITHIN_MS - now);
}

/**
 * Tabs that may be held by something the daemon's connection cannot see: no dialog it knows of, no answer to that
 * connection since it attached, and no constant run in time now (see `respondsWithin`). Only tabs `include` lets
 * through are asked, all at once.
 */
export async function silentTabs(
  browser: { list(): BrowserTab[]; responds?(tabId: string, withinMs: number): Promise<boolean> } | undefined,
  include: (tab: BrowserTab) => boolean = () => true,
): Promise<BrowserTab[]> {
  const responds = browser?.responds?.bind(browser);
  if (!browser || !responds) {
    return [];
  }
  const now = Date.now();
  const candidates = browser.list().filter((tab) => tab.dialog === null && !tab.answers && include(tab));
  const answered = await Promise.all(candidates.map((tab) => responds(tab.tabId, respondsWithin(tab, now))));
  return candidates.filter((_tab, index) => !answered[index]);
}

/** A session's pending popups (`pendingTabs`) that may be held (see `silentTabs`); only those `include` lets through. */
export function silentPopups(
  browser: Parameters<typeof silentTabs>[0],
  pendingTabs: ReadonlySet<string>,
  include: (tab: BrowserTab) => boolean = () => true,
): Promise<BrowserTab[]> {
  return silentTabs(browser, (tab) => pendingTabs.has(tab.tabId) && include(tab));
}

/**
 * Whether an upstream started now would wait on a tab before it serves anyone (its first look at the browser may be at
 * any tab): a tab shows a JavaScript dialog, or one that has not answered the daemon's connection since it attached
 * does not run a constant in time either (see `silentTabs`). A page that opened a moment ago has not answered yet
 * either, and is given until `STARTS_WITHIN_MS` after it attached to run one: it is starting, and holds nobody.
 */
export async function startWouldWait(browser: Parameters<typeof silentTabs>[0]): Promise<boolean> {
  const tabs = browser?.list() ?? [];
  if (tabs.some((tab) => tab.dialog !== null)) {
    return true;
  }
  if (!tabs.some((tab) => !tab.answers)) {
    return false;
  }
  return !browser?.responds || (await silentTabs(browser)).length > 0;
}

/**
 * Whether a tab's page may block its renderer: it shows a JavaScript dialog, or it has not answered the daemon's
 * connection since it attached (a dialog it showed before the daemon's connection attached is never reported; a tab
 * that just opened has not answered yet either, for a moment).
 */
export function blocks(tab: BrowserTab): boolean {
  return tab.dialog !== null || !tab.answers;
}

/**
 * Which tabs upstream must not be asked about while they are held, as the daemon's own browser connection tells:
 * a tab that may block its renderer (see `blocks`) and every tab of its opener family (see `openerFamily`).
 * Upstream's first look at such a page waits until the page is let go.
 *
 * A worker lists its pages by its own ids, with URLs; which tab a page is comes only from upstream's `get_tab_id`.
 * So a listed page whose tab is not known yet is looked up only when its URL is not one of a held tab (nor unknown to
 * the browser, while anything is held). A page that takes a held tab's URL only delays its own lookup: the URL never
 * decides which tab a page is, nor whose.
 */
export class HeldTabs {
  static readonly none = new HeldTabs([]);

  readonly #held = new Set<string>();
  readonly #heldUrls = new Set<string>();
  readonly #urls: ReadonlySet<string>;

  constructor(tabs: readonly BrowserTab[]) {
    this.#urls = new Set(tabs.map((tab) => tab.url));
    for (const tab of tabs) {
      if (blocks(tab)) {
        for (const member of openerFamily(tabs, tab.tabId)) {
          this.#held.add(member.tabId);
        }
      }
    }
    for (const tab of tabs) {
      if (this.#held.has(tab.tabId)) {
        this.#heldUrls.add(tab.url);
      }
    }
  }

  get any(): boolean {
    return this.#held.size > 0;
  }

  has(tabId: string): boolean {
    return this.#held.has(tabId);
  }

  /** Whether a listed page whose tab is not known yet may be a held tab, by its URL (undefined: not listed yet). */
  mayHold(url: string | undefined): boolean {
    if (!this.any) {
      return false;
    }
    return url === undefined || this.#heldUrls.has(url) || !this.#urls.has(url);
  }
}
