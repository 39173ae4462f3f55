import { TabmuxError } from '../../../shared/errors.js';
import type { ToolResult } from '../../../shared/protocol.js';
import type { BrowserTab, TabCrash } from '../browser/BrowserTab.js';
import type { OwnedPage } from './Session.js';
import type { TabView } from './TabView.js';
import { withNotes } from './withNotes.js';
import { shownUrl } from '../../../shared/shownUrl.js';

/** A tool that loads the page anew, which a crashed page takes: the way back for an agent. */
const LOADS_PAGE: ReadonlySet<string> = new Set(['navigate_page']);

/** How many times a page that crashes during one call is loaded again; after that it is left blank. */
const RELOADS_PER_CALL = 2;

const BLANK = 'about:blank';

type WatchedPage = Pick<OwnedPage, 'pageId' | 'tabId' | 'url'>;

/** What became of one crash during a call: the url loaded in its place, and whether the browser started loading it. */
interface Reload {
  crash: TabCrash;
  url: string;
  started: boolean;
}

/**
 * Runs `call`, a call of `tool` on a session's page, minding the page's renderer process. The browser holds every
 * command sent to a crashed page, unanswered, until the page loads again, so a call on it would wait out its time
 * limit and take its worker with it (the worker would be replaced, under every session it serves). Instead:
 *
 * - a page that crashed before the call is refused at once (`page_crashed`), but for `navigate_page`, which loads it
 *   again;
 * - a page that crashes while the call waits on it is loaded again at the url it showed, through the daemon's own
 *   connection (a navigation, so a form is not sent again; a url agents may not reach, or a third crash in the same
 *   call, gets a blank page instead): the browser then answers what the page held, and the call ends with a note
 *   saying what happened.
 *
 * Which tab crashed and how comes from the browser's own events, never from anything a page writes.
 */
export async function callMindingCrashes(
  browser: TabView | undefined,
  page: WatchedPage,
  tool: string,
  reachable: (url: string) => boolean,
  call: () => Promise<ToolResult>,
  logged: (message: string) => void,
): Promise<ToolResult> {
  refuseCrashed(browser, page, tool);
  const tabId = page.tabId;
  const reloadCrashed = browser?.reloadCrashed?.bind(browser);
  if (tabId === null || !browser?.on || !browser.off || !reloadCrashed) {
    return call();
  }
  const reloads: Reload[] = [];
  let reloading = Promise.resolve();
  const listener = (changed: BrowserTab): void => {
    const crash = changed.crashed;
    if (changed.tabId !== tabId || !crash) {
      return;
    }
    const url = reloads.length < RELOADS_PER_CALL && changed.url !== '' && reachable(changed.url) ? changed.url : BLANK;
    const reload: Reload = { crash, url, started: false };
    reloads.push(reload);
    reloading = reloading.then(async () => {
      reload.started = await reloadCrashed(tabId, url);
    });
  };
  browser.on('crashed', listener);
  let result: ToolResult;
  try {
    result = await call();
  } finally {
    browser.off('crashed', listener);
  }
  if (reloads.length === 0) {
    return result;
  }
  await reloading;
  logged(
    `page ${page.pageId} (${shownUrl(page.url)}) crashed during ${tool} (${reloads.map((reload) => reload.crash.status).join(', ')}); ` +
      `loaded ${reloads.map((reload) => (reload.started ? shownUrl(reload.url) : `${shownUrl(reload.url)} (refused)`)).join(', then ')}`,
  );
  return withNotes({ notes: [crashNote(page, tool, reloads)] }, result);
}

/** Refuses a call on a page that crashed before it (`page_crashed`), but for one that loads it again. */
export function refuseCrashed(browser: TabView | undefined, page: WatchedPage, tool: string): void {
  const tabId = page.tabId;
  const tab = tabId === null ? undefined : (browser?.get?.(tabId) ?? browser?.list().find((candidate) => candidate.tabId === tabId));
  if (tab?.crashed && !LOADS_PAGE.has(tool)) {
    throw crashedPageError(page.pageId, tab.url || page.url, tab.crashed);
  }
}

/** The refusal of a call on a page that crashed before it. */
function crashedPageError(pageId: number, url: string, crash: TabCrash): TabmuxError {
  return new TabmuxError(
    'page_crashed',
    `your page ${pageId} (${url || 'no url'}) crashed: ${howItEnded(crash)}, and nothing on it can answer until it loads again. Load it again with navigate_page (type "reload", or a url), or close it with close_page; what it held before the crash (form input, its scripts' state) is gone`,
  );
}

function crashNote(page: WatchedPage, tool: string, reloads: readonly Reload[]): string {
  const last = reloads[reloads.length - 1];
  const times = reloads.length === 1 ? '' : ` (${reloads.length} times)`;
  const loaded = last?.started
    ? last.url === BLANK
      ? 'tabmux left it blank (about:blank) so the call could end'
      : `tabmux loaded ${last.url} in it again so the call could end`
    : 'tabmux could not load it again';
  return `Note: your page ${page.pageId} (${page.url || 'no url'}) crashed while this ${tool} call waited on it${times}: ${last ? howItEnded(last.crash) : 'its renderer process ended'}. ${loaded}. What the page held before (form input, its scripts' state) is gone and uids from before are stale: take a new snapshot. What follows is what the call gave after the crash.`;
}

/** Chrome's termination status in words. */
function howItEnded(crash: TabCrash): string {
  switch (crash.status) {
    case 'oom':
      return 'its renderer process ran out of memory';
    case 'killed':
      return 'its renderer process was killed';
    case 'crashed':
      return 'its renderer process crashed';
    default:
      return `its renderer process ended (${crash.status}, code ${crash.errorCode})`;
  }
}
