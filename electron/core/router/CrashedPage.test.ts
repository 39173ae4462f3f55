import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../shared/protocol.js';
import { textOf, textResult } from '../../../shared/toolResult.js';
import type { BrowserTab } from '../browser/BrowserTab.js';
import { callMindingCrashes } from './CrashedPage.js';
import type { TabView } from './TabView.js';

/**
 * A browser with two tabs whose pages the test crashes; a crashed page holds the call on it until it is loaded again,
 * as Chrome holds the commands sent to it.
 */
class FakeBrowser extends EventEmitter<{ crashed: [BrowserTab] }> implements TabView {
  readonly tabs: BrowserTab[] = ['t1', 't2'].map((tabId) => ({ tabId, pageTargetId: `p-${tabId}`, openerTabId: null, url: `https://site/${tabId}`, title: '', dialog: null, answers: true, watchedSince: 0, crashed: null }));
  readonly reloads: Array<{ tabId: string; url: string }> = [];
  refuse = false;
  #held: Array<() => void> = [];

  list(): BrowserTab[] {
    return this.tabs;
  }

  crash(tabId: string, status = 'crashed'): void {
    const tab = this.tabs.find((candidate) => candidate.tabId === tabId);
    if (tab) {
      tab.crashed = { status, errorCode: 5, at: 0 };
      this.emit('crashed', tab);
    }
  }

  async reloadCrashed(tabId: string, url: string): Promise<boolean> {
    this.reloads.push({ tabId, url });
    const tab = this.tabs.find((candidate) => candidate.tabId === tabId);
    if (this.refuse || !tab) {
      return false;
    }
    tab.crashed = null;
    tab.url = url;
    for (const release of this.#held.splice(0)) {
      release();
    }
    return true;
  }

  /** A call on a page that is held while the page is crashed, and answers once it runs again. */
  holdingCall(): Promise<ToolResult> {
    return new Promise((resolve) => this.#held.push(() => resolve(textResult('answered after the crash'))));
  }
}

const PAGE = { pageId: 4, tabId: 't1', url: 'https://site/t1' };
const everywhere = (): boolean => true;

describe('a call on a page whose renderer crashes', () => {
  it('loads the page again at its url, so the call ends, and tells the agent and the log', async () => {
    const browser = new FakeBrowser();
    const logged: string[] = [];
    const call = callMindingCrashes(browser, PAGE, 'take_snapshot', everywhere, () => browser.holdingCall(), (line) => logged.push(line));
    browser.crash('t1', 'oom');
    const text = textOf(await call);
    expect(browser.reloads).toEqual([{ tabId: 't1', url: 'https://site/t1' }]);
    expect(text).toMatch(/^Note: your page 4 \(https:\/\/site\/t1\) crashed while this take_snapshot call waited on it: its renderer process ran out of memory\. tabmux loaded https:\/\/site\/t1 in it again/);
    expect(text).toContain('answered after the crash');
    expect(logged).toEqual(['page 4 (https://site/t1) crashed during take_snapshot (oom); loaded https://site/t1']);
    expect(browser.listenerCount('crashed')).toBe(0);
  });

  it('leaves the page blank after two loads in one call, or when agents may not reach its url', async () => {
    const browser = new FakeBrowser();
    let crashes = 0;
    const call = callMindingCrashes(browser, PAGE, 'navigate_page', everywhere, async () => {
      // The page crashes again each time it loads, three times in all.
      while (crashes < 3) {
        crashes += 1;
        const held = browser.holdingCall();
        browser.crash('t1');
        await held;
      }
      return textResult('done');
    }, () => undefined);
    expect(textOf(await call)).toContain('(3 times): its renderer process crashed. tabmux left it blank (about:blank)');
    expect(browser.reloads.map((reload) => reload.url)).toEqual(['https://site/t1', 'https://site/t1', 'about:blank']);

    const guarded = new FakeBrowser();
    const refusedUrl = callMindingCrashes(guarded, PAGE, 'click', (url) => url !== 'https://site/t1', () => guarded.holdingCall(), () => undefined);
    guarded.crash('t1');
    await refusedUrl;
    expect(guarded.reloads).toEqual([{ tabId: 't1', url: 'about:blank' }]);
  });

  it("leaves other tabs' crashes alone, and says so when the browser would not load the page again", async () => {
    const browser = new FakeBrowser();
    const quiet = callMindingCrashes(browser, PAGE, 'click', everywhere, async () => {
      browser.crash('t2');
      return textResult('clicked');
    }, () => undefined);
    expect(textOf(await quiet)).toBe('clicked');
    expect(browser.reloads).toEqual([]);

    browser.refuse = true;
    const refused = callMindingCrashes(browser, PAGE, 'click', everywhere, async () => {
      browser.crash('t1', 'killed');
      return { content: [{ type: 'text', text: 'Error: timed out' }], isError: true };
    }, () => undefined);
    const result = await refused;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('its renderer process was killed. tabmux could not load it again.');
  });

  it('refuses a call on a page that crashed before it, but for navigate_page', async () => {
    const browser = new FakeBrowser();
    browser.tabs[0]!.crashed = { status: 'abnormal', errorCode: 2, at: 0 };
    let called = 0;
    const run = (tool: string): Promise<ToolResult> => callMindingCrashes(browser, PAGE, tool, everywhere, async () => {
      called += 1;
      return textResult('ok');
    }, () => undefined);
    const refused = run('take_snapshot');
    await expect(refused).rejects.toMatchObject({ code: 'page_crashed' });
    await expect(refused).rejects.toThrow('your page 4 (https://site/t1) crashed: its renderer process ended (abnormal, code 2), and nothing on it can answer until it loads again');
    expect(called).toBe(0);
    expect(textOf(await run('navigate_page'))).toBe('ok');
  });
});
