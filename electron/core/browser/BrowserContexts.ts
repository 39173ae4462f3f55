import type { CdpConnection } from './CdpConnection.js';

/**
 * Browser contexts the daemon makes on its own connection for sessions' isolated contexts (`new_page` with
 * `isolatedContext`): each is a fresh set of cookies, storage and cache. The router disposes each one when its
 * session closes; the browser disposes them when this connection goes (`disposeOnDetach`), so none outlives the
 * daemon, in a browser tabmux launched or in one it only connects to.
 */
export class BrowserContexts {
  readonly #connection: CdpConnection;
  readonly #prepare: (browserContextId: string) => Promise<void>;

  /** `prepare` runs on every new context before any tab opens in it (where its downloads go, say). */
  constructor(connection: CdpConnection, prepare: (browserContextId: string) => Promise<void> = () => Promise.resolve()) {
    this.#connection = connection;
    this.#prepare = prepare;
  }

  /** A new, empty browser context; its id. */
  async create(): Promise<string> {
    const { browserContextId } = await this.#connection.send('Target.createBrowserContext', { disposeOnDetach: true });
    try {
      await this.#prepare(browserContextId);
    } catch (error) {
      await this.dispose(browserContextId);
      throw error;
    }
    return browserContextId;
  }

  /** Closes a context with every tab in it and forgets its cookies and storage. False when it was gone already. */
  async dispose(browserContextId: string): Promise<boolean> {
    try {
      await this.#connection.send('Target.disposeBrowserContext', { browserContextId });
      return true;
    } catch {
      return false;
    }
  }
}
