import type { ToolResult } from '../../../shared/protocol.js';
import type { BrowserTab } from '../browser/BrowserTab.js';
import type { OwnedPage } from './Session.js';
import type { TabView } from './TabView.js';
import { openerFamily } from './heldTabs.js';
import { withNotes } from './withNotes.js';
import { withDeadline } from '../../../shared/withDeadline.js';
import { shownUrl } from '../../../shared/shownUrl.js';

/**
 * Tools whose running script may be the agent's own (`evaluate_script` runs the function it was given): a page busy
 * with it is busy on purpose, until the call's time limit.
 */
const OWN_SCRIPT_TOOLS: ReadonlySet<string> = new Set(['evaluate_script']);

/** A page the watch found stuck and got going again, for the note to the agent and the daemon's log. */
export interface EndedScript {
  /** How long the page had given no answer when its script was ended, in ms. */
  silentMs: number;
}

/**
 * Watches the page a call acts on while the call runs: a page whose script never yields (a busy loop, hostile or
 * broken) holds upstream's call until the call's time limit, minutes later, and answers nothing meanwhile. Once the
 * call has run `stuckMs`, and the page has given no answer at all (not even an error) to a constant the daemon's own
 * connection asked of it, for the last two thirds of that, the page counts as stuck: the script running in it is
 * ended there (`Runtime.terminateExecution`, as Chrome's "page unresponsive" prompt would end it), the page stays open,
 * and the call goes on. A page showing a JavaScript dialog is not stuck: the dialog holds it, and is the agent's to
 * answer, and so is a page related to it by an opener that shows one. Which page is which comes from the browser's
 * tab ids; nothing a page writes decides it, and the only thing a page can do about the watch is answer, which it does
 * whenever its script lets it. A page counts as silent only while the browser itself answers: when the browser's own
 * process does not, no page answers, and its scripts are left alone.
 */
export class StuckPageWatch {
  readonly ended: EndedScript[] = [];
  #done = false;
  #wake: (() => void) | undefined;
  readonly #running: Promise<void>;

  private constructor(
    private readonly browser: TabView,
    private readonly tabId: string,
    private readonly stuckMs: number,
  ) {
    this.#running = this.#watch().catch(() => undefined);
  }

  /**
   * Starts watching `tabId` while a call of `tool` runs on it; undefined when there is nothing to watch: the watch is
   * off (`stuckMs` 0), the tab is not known, the browser's connection cannot ask, or the tool runs the agent's script.
   */
  static start(browser: TabView | undefined, tabId: string | null, tool: string, stuckMs: number): StuckPageWatch | undefined {
    if (stuckMs <= 0 || tabId === null || !browser?.silent || !browser.stopScripts || OWN_SCRIPT_TOOLS.has(tool)) {
      return undefined;
    }
    return new StuckPageWatch(browser, tabId, stuckMs);
  }

  /** The call ended: the watch stops at once, a question on its way left to itself. Resolves once it has. */
  stop(): Promise<void> {
    this.#done = true;
    this.#wake?.();
    return this.#running;
  }

  async #watch(): Promise<void> {
    const step = Math.max(1, Math.round(this.stuckMs / 3));
    let silentSince: number | undefined;
    let silentAsks = 0;
    await this.#pause(step);
    while (!this.#done && this.#tab()?.pageTargetId) {
      const askedAt = Date.now();
      // A page a dialog holds is not stuck: it is not asked, and counts as answering.
      const silent = !this.#dialogHolds() && (await this.#until(this.#aloneSilent(step))) === true;
      if (this.#done) {
        return;
      }
      if (!silent) {
        silentSince = undefined;
        silentAsks = 0;
        await this.#pause(step);
        continue;
      }
      silentSince ??= askedAt;
      silentAsks += 1;
      // A dialog that opened while the page was asked is why it did not answer: not a script to end.
      if (silentAsks >= 2 && !this.#dialogHolds() && (await this.#endScript(step)) === true) {
        this.ended.push({ silentMs: Date.now() - silentSince });
        silentSince = undefined;
        silentAsks = 0;
      }
    }
  }

  /**
   * Whether the page gave no answer within `ms` while the browser itself did: a browser whose own process does not
   * answer (busy, paused) answers for none of its pages, and ending the page's script would not be what helps.
   */
  async #aloneSilent(ms: number): Promise<boolean> {
    const [pageSilent, browserAnswers] = await Promise.all([this.browser.silent?.(this.tabId, ms) ?? false, this.browser.browserAnswers?.(ms) ?? true]);
    // A crashed page answers nothing either, but has no script to end (see `callMindingCrashes`).
    return pageSilent && browserAnswers && !this.#tab()?.crashed;
  }

  /**
   * Asks the browser to end the page's running script; true once it says it did. Its answer is waited for `ms` at
   * most, and no longer than the call runs: a renderer too busy to answer cannot hold the call's end.
   */
  async #endScript(ms: number): Promise<boolean | undefined> {
    const asked = this.browser.stopScripts?.(this.tabId) ?? Promise.resolve(false);
    return this.#until(withDeadline(asked, ms, false));
  }

  /**
   * A dialog holds the page's renderer: its own, or one of a page related to it by an opener (they may share the
   * renderer, whose script the dialog waits in).
   */
  #dialogHolds(): boolean {
    return openerFamily(this.browser.list(), this.tabId).some((tab) => tab.dialog !== null);
  }

  #tab(): BrowserTab | undefined {
    return this.browser.get ? this.browser.get(this.tabId) : this.browser.list().find((candidate) => candidate.tabId === this.tabId);
  }

  /** Waits `ms`, or less if the call ends first. */
  async #pause(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await this.#until(
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    );
    clearTimeout(timer);
  }

  /** `work`, or undefined as soon as the call ends. */
  #until<T>(work: Promise<T>): Promise<T | undefined> {
    if (this.#done) {
      return Promise.resolve(undefined);
    }
    const ended = new Promise<undefined>((resolve) => {
      this.#wake = () => resolve(undefined);
    });
    return Promise.race([work, ended]);
  }
}

/**
 * Runs `call`, a call of `tool` on a session's page, under a `StuckPageWatch`; a page it got going again is told to
 * the agent in front of the result, and logged.
 */
export async function callWatchingPage(
  browser: TabView | undefined,
  page: Pick<OwnedPage, 'pageId' | 'tabId' | 'url'>,
  tool: string,
  stuckMs: number,
  call: () => Promise<ToolResult>,
  logged: (message: string) => void,
): Promise<ToolResult> {
  const watch = StuckPageWatch.start(browser, page.tabId, tool, stuckMs);
  if (!watch) {
    return call();
  }
  let result: ToolResult;
  try {
    result = await call();
  } finally {
    await watch.stop();
  }
  if (watch.ended.length === 0) {
    return result;
  }
  logged(`page ${page.pageId} (${shownUrl(page.url)}) did not respond during ${tool}; ended the script that held it`);
  return withNotes({ notes: [stuckPageNote(page.pageId, page.url, watch.ended)] }, result);
}

/** What the agent is told of a page the watch got going again during its call. */
export function stuckPageNote(pageId: number, url: string, ended: readonly EndedScript[]): string {
  const seconds = Math.round((ended[0]?.silentMs ?? 0) / 1000);
  const times = ended.length === 1 ? '' : ` (${ended.length} times during this call)`;
  return `Note: your page ${pageId} (${url || 'no url'}) stopped responding while this call waited on it: a script of the page had run for at least ${seconds} s without a break. tabmux ended that script so the call could go on${times}; the page stays open, and its other scripts, timers and handlers run as before.`;
}
