import type { CDPSession } from 'puppeteer-core/internal/api/CDPSession.js';
import type { CdpConnection } from './CdpConnection.js';
import { withDeadline } from '../../../shared/withDeadline.js';

/**
 * What the tab list (`BrowserTabs`) asks of a tab's page on the daemon's own connection, outside any upstream worker,
 * so it works whatever state the workers are in. Each goes through the session the daemon auto-attached to the page,
 * from the tab list's own map of them; each is false when the tab or its page is unknown or the browser refused.
 */
export class PageCommands {
  readonly #connection: CdpConnection;
  /** Tab id -> the flattened CDP session of its page on this connection. */
  readonly #pageSessions: ReadonlyMap<string, string>;

  constructor(connection: CdpConnection, pageSessions: ReadonlyMap<string, string>) {
    this.#connection = connection;
    this.#pageSessions = pageSessions;
  }

  async answerDialog(tabId: string, accept: boolean, promptText?: string): Promise<boolean> {
    const session = this.#session(tabId);
    if (!session) {
      return false;
    }
    try {
      await session.send('Page.handleJavaScriptDialog', { accept, ...(promptText === undefined ? {} : { promptText }) });
    } catch {
      return false;
    }
    return true;
  }

  async responds(tabId: string, withinMs: number): Promise<boolean> {
    return (await this.#askConstant(tabId, withinMs)) === 'ran';
  }

  async silent(tabId: string, forMs: number): Promise<boolean> {
    // Any answer counts, an error too (a page between documents has no context to run in, but it answers).
    return (await this.#askConstant(tabId, forMs)) === 'silent';
  }

  /**
   * Asks a tab's page to evaluate a constant (which no page can observe): whether it ran it, answered with an error,
   * or gave no answer within `withinMs`; undefined for a tab that is not known.
   */
  async #askConstant(tabId: string, withinMs: number): Promise<'ran' | 'refused' | 'silent' | undefined> {
    const session = this.#session(tabId);
    if (!session) {
      return undefined;
    }
    const answered = session.send('Runtime.evaluate', { expression: '0', returnByValue: true }).then(
      () => 'ran' as const,
      () => 'refused' as const,
    );
    return withDeadline(answered, withinMs, 'silent' as const);
  }

  async stopScripts(tabId: string): Promise<boolean> {
    const session = this.#session(tabId);
    if (!session) {
      return false;
    }
    try {
      await session.send('Runtime.terminateExecution');
      return true;
    } catch {
      return false;
    }
  }

  async emulateViewport(tabId: string, width: number, height: number): Promise<boolean> {
    const session = this.#session(tabId);
    if (!session) {
      return false;
    }
    try {
      await session.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 0, mobile: false });
      return true;
    } catch {
      return false;
    }
  }

  #session(tabId: string): CDPSession | null | undefined {
    const sessionId = this.#pageSessions.get(tabId);
    return sessionId === undefined ? undefined : this.#connection.session(sessionId);
  }
}
