import { TabmuxError } from '../../../shared/errors.js';
import type { ToolResult } from '../../../shared/protocol.js';
import { textResult } from '../../../shared/toolResult.js';
import type { BrowserTab } from '../browser/BrowserTab.js';
import type { OwnedPage, Session } from './Session.js';
import { dialogName, type TabIdentity } from './TabIdentity.js';
import type { TabView } from './TabView.js';
import type { Worker } from './Worker.js';
import { blocks, openerFamily, RESPONDS_WITHIN_MS, respondsWithin, silentPopups } from './heldTabs.js';
import { sideCall } from './sideCall.js';

/**
 * Keeps a session's page-scoped calls away from upstream while a JavaScript dialog blocks the page's renderer, and
 * answers the dialogs upstream cannot reach; the dialog is the session's own business, and upstream's one-call-at-a-time
 * worker must not wait on it for every session it serves.
 *
 * - Upstream answers a dialog of a page it was already following when the dialog opened (it then refuses the calls the
 *   dialog blocks, at once). The router knows so for the pages whose tab it learned from that worker.
 * - A page upstream has not followed yet cannot be looked at while a dialog holds it: upstream waits for the renderer
 *   first. Its calls are refused here, and `handle_dialog` is answered through the browser's own connection.
 * - A page whose opener family shows a dialog (or does not answer) shares that page's renderer when same-site; if it
 *   does not run a constant at once, its calls are refused, naming the dialog.
 * - `handle_dialog` from a page with no dialog answers one shown by a popup of the session that is not its page yet.
 *
 * Which tab is which comes from the browser's own connection and the session's own tab ids, never from URLs.
 * Returns a result to give the agent instead of calling upstream, or undefined to call upstream as usual.
 */
export async function gatePageCall(tabs: TabIdentity, session: Session, worker: Worker, page: OwnedPage, tool: string, args: Record<string, unknown>): Promise<ToolResult | undefined> {
  const browser = tabs.browser;
  if (!browser) {
    return undefined;
  }
  const all = browser.list();
  const own = page.tabId === null ? undefined : all.find((tab) => tab.tabId === page.tabId);
  // A popup upstream reported opening is the session's page before its tab is known; while a dialog may hold it, its
  // tab cannot be learned, and upstream, which never looked at it, would wait on it.
  const heldPopup = page.tabId === null && page.origin === 'opened' && tabs.held().mayHold(page.url);
  if (tool === 'handle_dialog') {
    return answer(tabs, browser, session, worker, page, own, heldPopup, args);
  }
  if (heldPopup) {
    throw new TabmuxError('dialog_open', `your page ${page.pageId} (opened by one of your pages) may be held by a dialog; call handle_dialog to accept or dismiss it first`);
  }
  if (!own) {
    return undefined;
  }
  if (own.dialog !== null) {
    if (followedBy(worker, page)) {
      return undefined;
    }
    throw new TabmuxError('dialog_open', `your page ${page.pageId} shows ${dialogName(own.dialog)} and waits for an answer; call handle_dialog to accept or dismiss it first`);
  }
  const family = openerFamily(all, own.tabId).filter((tab) => tab.tabId !== own.tabId);
  const blocker = family.find((tab) => tab.dialog !== null) ?? family.find(blocks);
  // A relative that has not answered yet may only be starting, and keeps the renderer they share busy while it does.
  if (!blocker || (browser.responds && (await browser.responds(own.tabId, blocker.dialog ? RESPONDS_WITHIN_MS : respondsWithin(blocker))))) {
    return undefined;
  }
  const what = blocker.dialog
    ? `${describe(tabs, session, blocker)} shows ${dialogName(blocker.dialog)}: they share a renderer, which the dialog blocks. ${remedy(session, blocker)}`
    : `${describe(tabs, session, blocker)} does not respond either (they share a renderer, which a dialog it showed before tabmux could see it may block). ${session.pendingTabs.has(blocker.tabId) ? 'Call handle_dialog to close that page.' : 'A person has to answer or close it; try again later'}`;
  throw new TabmuxError('dialog_open', `your page ${page.pageId} cannot run while ${what}`);
}

/** Upstream followed the page before any dialog of now: it learned the page's tab from that worker, so it saw it. */
function followedBy(worker: Worker, page: OwnedPage): boolean {
  return page.tabId !== null && worker.tabIds.get(page.pageId) === page.tabId;
}

async function answer(
  tabs: TabIdentity,
  browser: TabView,
  session: Session,
  worker: Worker,
  page: OwnedPage,
  own: BrowserTab | undefined,
  heldPopup: boolean,
  args: Record<string, unknown>,
): Promise<ToolResult | undefined> {
  const accept = args['action'] === 'accept';
  const promptText = typeof args['promptText'] === 'string' ? args['promptText'] : undefined;
  const verb = accept ? 'accepted' : 'dismissed';
  if (own?.dialog) {
    if (followedBy(worker, page) || !(await browser.answerDialog?.(own.tabId, accept, promptText))) {
      return undefined;
    }
    // Upstream may have followed the page after all (its tab id was not learned yet): it would keep the dialog as open.
    await sideCall(worker, 'handle_dialog', { ...args, pageId: page.pageId }).catch(() => undefined);
    return textResult(`Successfully ${verb} the dialog`);
  }
  if (!own && !heldPopup && tabs.held().mayHold(page.url)) {
    // A page upstream opened and followed, whose tab is not known yet: it may be the one showing the dialog.
    return undefined;
  }
  const popup = browser.list().find((tab) => tab.dialog !== null && session.pendingTabs.has(tab.tabId));
  // The browser's tabs are live: the dialog is gone from the tab once answered.
  const dialog = popup?.dialog;
  if (popup && dialog && (await browser.answerDialog?.(popup.tabId, accept, promptText))) {
    return textResult(`Successfully ${verb} ${dialogName(dialog)} of a page one of your pages opened (${popup.url || 'no url'}); it becomes one of your pages on your next call.`);
  }
  return closeSilentPopups(browser, session);
}

/**
 * A pending popup held by something the daemon's connection cannot see (a dialog it showed before that connection
 * attached to it, which only the client that saw it open could answer; or a script that never yields) blocks its
 * opener's renderer for good. Closing it is the one way out left, so `handle_dialog` does that, and says so.
 */
async function closeSilentPopups(browser: TabView, session: Session): Promise<ToolResult | undefined> {
  const close = browser.close?.bind(browser);
  if (!close) {
    return undefined;
  }
  const closed: string[] = [];
  for (const tab of await silentPopups(browser, session.pendingTabs)) {
    if (await close(tab.tabId)) {
      closed.push(tab.url || 'no url');
    }
  }
  if (closed.length === 0) {
    return undefined;
  }
  return textResult(
    closed
      .map(
        (url) =>
          `A page one of your pages opened (${url}) did not respond, so a dialog it shows (one it showed before tabmux could see it) cannot be answered from here, and nothing else would let it go; it was closed instead, and the pages sharing its renderer run again.`,
      )
      .join('\n'),
  );
}

function describe(tabs: TabIdentity, session: Session, tab: BrowserTab): string {
  const owned = tabs.pageOfTab(tab.tabId);
  if (owned?.session === session && owned.page) {
    return `your page ${owned.page.pageId} (${tab.url || 'no url'})`;
  }
  if (owned?.session === session) {
    return `a page one of your pages opened (${tab.url || 'no url'})`;
  }
  return `a page related to it by an opener (${tab.url || 'no url'})`;
}

function remedy(session: Session, tab: BrowserTab): string {
  if (session.pendingTabs.has(tab.tabId)) {
    return 'Call handle_dialog to accept or dismiss it.';
  }
  const page = [...session.pages.values()].find((candidate) => candidate.tabId === tab.tabId);
  if (page) {
    return `Call select_page with pageId ${page.pageId}, then handle_dialog.`;
  }
  return 'It is not yours to answer: a person, or the session it belongs to, has to close it.';
}
