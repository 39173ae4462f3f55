import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../Logger.js';
import type { DaemonClient } from '../transport/DaemonClient.js';

/**
 * The bridge's one connection to its profile's daemon. It is made lazily and made again after a drop, so a daemon
 * that stopped or crashed comes back on the next call rather than leaving the agent with a dead server. Each new
 * connection gets a new generation number: sessions are only known to be valid within the generation they were
 * created or bound in.
 */
export class DaemonLink {
  #client: DaemonClient | undefined;
  #opening: Promise<DaemonClient> | undefined;
  #generation = 0;
  #closed = false;

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
    const client = await this.connect();
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
