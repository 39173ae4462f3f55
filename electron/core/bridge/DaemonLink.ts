import { TabmuxError } from '../../../shared/errors.js';
import { Backoff } from '../platform/Backoff.js';
import type { Logger } from '../platform/Logger.js';
import type { DaemonClient } from '../transport/DaemonClient.js';

/**
 * The bridge's one connection to its profile's daemon. It is made lazily and made again after a drop, so a daemon
 * that stopped or crashed comes back on the next call rather than leaving the agent with a dead server. Each new
 * connection gets a new generation number: sessions are only known to be valid within the generation they were
 * created or bound in. A connect that keeps failing (a daemon that cannot start) is retried with backoff: each try
 * may spawn a daemon and a Chrome, so an agent that retries in a loop gets the last error at once meanwhile.
 */
export class DaemonLink {
  #client: DaemonClient | undefined;
  #opening: Promise<DaemonClient> | undefined;
  #generation = 0;
  #closed = false;
  /** The first failure is retried on the next call; after that 1 s, 2 s … up to 30 s. */
  readonly #backoff = new Backoff({ initialMs: 1000, maxMs: 30_000, freeFailures: 1 });
  #lastFailure: TabmuxError | undefined;

  constructor(
    private readonly connect: () => Promise<DaemonClient>,
    private readonly logger: Logger,
    private readonly onConnected: (client: DaemonClient) => void = () => undefined,
  ) {}

  /** Increases each time a new connection is made; 0 before the first. */
  get generation(): number {
    return this.#generation;
  }

  /** The live connection, if there is one; never connects. */
  get current(): DaemonClient | undefined {
    return this.#client && !this.#client.closed ? this.#client : undefined;
  }

  /** The live connection, connecting (and starting the daemon) when there is none. */
  client(): Promise<DaemonClient> {
    if (this.#closed) {
      return Promise.reject(new TabmuxError('cancelled', 'the MCP bridge is shutting down'));
    }
    const current = this.current;
    if (current) {
      return Promise.resolve(current);
    }
    const wait = this.#backoff.remainingMs();
    if (this.#opening === undefined && wait > 0 && this.#lastFailure !== undefined) {
      const { code, message } = this.#lastFailure;
      return Promise.reject(new TabmuxError(code, `${message} (next attempt in ${Math.ceil(wait / 1000)} s)`));
    }
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  close(): void {
    this.#closed = true;
    this.#client?.close();
  }

  async #open(): Promise<DaemonClient> {
    let client: DaemonClient;
    try {
      client = await this.connect();
    } catch (error) {
      this.#lastFailure = TabmuxError.from(error);
      this.#backoff.fail();
      throw error;
    }
    this.#backoff.reset();
    this.#lastFailure = undefined;
    if (this.#closed) {
      client.close();
      throw new TabmuxError('cancelled', 'the MCP bridge is shutting down');
    }
    this.#client = client;
    this.#generation++;
    client.onClose(() => {
      if (this.#client === client && !this.#closed) {
        this.logger.warn(`lost the connection to the daemon (pid ${client.hello.pid}); the next call reconnects`);
      }
    });
    this.logger.info(`connected to the daemon for profile ${client.hello.profile} (pid ${client.hello.pid})`);
    this.onConnected(client);
    return client;
  }
}
