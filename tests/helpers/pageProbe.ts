import type { Protocol } from 'devtools-protocol';
import type { CDPSession } from 'puppeteer-core/internal/api/CDPSession.js';
import { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { NodeWebSocketTransport } from 'puppeteer-core/internal/node/NodeWebSocketTransport.js';
import { afterAll, beforeAll } from 'vitest';
import type { HostileRig } from './hostileRig.js';
import { waitFor } from './waitFor.js';
import { withDeadline } from '../../shared/withDeadline.js';

/**
 * Whether a page runs script, asked over the test's own CDP connection, never the daemon: a JavaScript dialog blocks
 * its page's renderer (and the pages sharing it) until it is answered.
 */
export class PageProbe {
  readonly #connection: Connection;
  readonly #sessions = new Map<string, CDPSession>();

  private constructor(connection: Connection) {
    this.#connection = connection;
  }

  static async connect(port: number): Promise<PageProbe> {
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { webSocketDebuggerUrl: string };
    const url = version.webSocketDebuggerUrl;
    return new PageProbe(new Connection(url, await NodeWebSocketTransport.create(url), 0, 30_000, false));
  }

  /** Whether the page at this URL evaluates a constant within `withinMs`. */
  async responds(url: string, withinMs = 1000): Promise<boolean> {
    const session = await this.#session(url);
    const answered = session.send('Runtime.evaluate', { expression: '1' }).then(
      () => true,
      () => false,
    );
    return withDeadline(answered, withinMs, false);
  }

  /** Whether `expression` comes to true in the page at this URL (false too while there is no such page yet). */
  async holds(url: string, expression: string): Promise<boolean> {
    const answer = await (await this.#session(url).catch(() => undefined))?.send('Runtime.evaluate', { expression, returnByValue: true }).catch(() => undefined);
    return answer?.result.value === true;
  }

  /** Runs `expression` in the page at this URL as if the user had just clicked it (a popup may open), and returns. */
  async run(url: string, expression: string): Promise<void> {
    await (await this.#session(url)).send('Runtime.evaluate', { expression, userGesture: true });
  }

  /**
   * Ends the renderer process of the page at this URL as a crash would (`Page.crash`, which the page never answers);
   * Chrome then shows its crash page in the tab.
   */
  async crash(url: string): Promise<void> {
    void (await this.#session(url)).send('Page.crash').catch(() => undefined);
  }

  /** Waits until the page at this URL is blocked (a dialog it or a page sharing its renderer shows). */
  async blocked(url: string): Promise<void> {
    await waitFor(async () => ((await this.responds(url, 500)) ? undefined : true), `the page at ${url} to block on a dialog`);
  }

  close(): void {
    this.#connection.dispose();
  }

  async #session(url: string): Promise<CDPSession> {
    const { targetInfos } = await this.#connection.send('Target.getTargets');
    const target = targetInfos.find((info: Protocol.Target.TargetInfo) => info.type === 'page' && info.url === url);
    if (!target) {
      throw new Error(`no page at ${url}`);
    }
    const known = this.#sessions.get(target.targetId);
    if (known && !known.detached) {
      return known;
    }
    const { sessionId } = await this.#connection.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
    const session = this.#connection.session(sessionId);
    if (!session) {
      throw new Error(`could not attach to the page at ${url}`);
    }
    this.#sessions.set(target.targetId, session);
    return session;
  }
}

/** A probe on the rig's browser for the tests of one `describe`, connected before them and closed after. */
export function usePageProbe(rig: () => HostileRig): () => PageProbe {
  let probe: PageProbe | undefined;
  beforeAll(async () => {
    probe = await PageProbe.connect(rig().port);
  });
  afterAll(() => probe?.close());
  return () => {
    if (!probe) {
      throw new Error('the page probe is used before it connected');
    }
    return probe;
  };
}
