import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChromeProcess } from '../../electron/core/browser/ChromeProcess.js';
import { findChrome } from '../../electron/core/browser/findChrome.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { chromeExtraArgs } from '../../electron/core/profile/settings.js';
import { UpstreamClient } from '../../electron/core/upstream/UpstreamClient.js';
import type { Teardown } from './Teardown.js';
import { okText, selectedPageId, type CallTool } from './toolCalls.js';

/** A page of a direct upstream child: calls on it carry its pageId, as an agent without tabmux would send them. */
export interface DirectPage {
  child: UpstreamClient;
  pageId: number;
  call: CallTool;
}

/**
 * The baseline side: a Chrome launched exactly as the daemon launches its own (same flags, headless, fresh
 * user-data-dir) and `chrome-devtools-mcp` children started exactly as the daemon starts its workers, but spoken to
 * directly with the MCP SDK, no router in between.
 */
export class DirectBrowser {
  readonly chrome: ChromeProcess;
  readonly #teardown: Teardown;
  readonly #children: UpstreamClient[] = [];

  private constructor(chrome: ChromeProcess, teardown: Teardown) {
    this.chrome = chrome;
    this.#teardown = teardown;
  }

  static async launch(teardown: Teardown): Promise<DirectBrowser> {
    const userDataDir = mkdtempSync(join(tmpdir(), 'tmxb-chrome-'));
    teardown.add(`remove ${userDataDir}`, () => rmSync(userDataDir, { recursive: true, force: true }));
    const chrome = await ChromeProcess.launch({
      executable: findChrome(undefined),
      userDataDir,
      headless: true,
      extraArgs: chromeExtraArgs({}),
      logger: Logger.silent(),
    });
    teardown.add(`stop Chrome ${chrome.pid}`, () => chrome.close());
    return new DirectBrowser(chrome, teardown);
  }

  async child(): Promise<UpstreamClient> {
    const child = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: this.chrome.browserUrl }, logger: Logger.silent() });
    this.#teardown.add(`stop upstream ${String(child.pid)}`, () => child.close());
    this.#children.push(child);
    return child;
  }

  /**
   * The index-th child, started if needed. The single-session rows reuse the throughput row's children, so the
   * direct Chrome carries as many upstream connections as the daemon's Chrome carries workers.
   */
  async childAt(index: number): Promise<UpstreamClient> {
    while (this.#children.length <= index) {
      await this.child();
    }
    const child = this.#children[index];
    if (!child) {
      throw new Error(`no direct child ${index}`);
    }
    return child;
  }

  childPids(): number[] {
    return this.#children.map((child) => child.pid).filter((pid): pid is number => pid !== null);
  }

  /** Opens a background tab in `child` (tabmux opens its pages in the background too) and returns calls bound to it. */
  async page(child: UpstreamClient): Promise<DirectPage> {
    const text = okText(await child.callTool('new_page', { url: 'about:blank', background: true }), 'direct new_page');
    const pageId = selectedPageId(text);
    return { child, pageId, call: (name, args) => child.callTool(name, { ...args, pageId }) };
  }
}
