import { isSessionGone, TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../platform/Logger.js';
import type { DaemonClient } from '../transport/DaemonClient.js';
import { DaemonLane } from './DaemonLane.js';
import type { DaemonLink } from './DaemonLink.js';

export interface BoundSessionOptions {
  link: DaemonLink;
  profile: string;
  /** A session given with --session: bound, never created, never closed by the bridge. */
  fixedSession?: string | undefined;
  /** The label for a session the bridge creates (--label, or the MCP client's name). */
  label: () => string;
  logger: Logger;
}

export interface BoundSession {
  client: DaemonClient;
  session: string;
  /** Set when the session had to be replaced because the daemon restarted; the agent needs to know. */
  note?: string;
}

/**
 * The bridge's own session: the agent's session in plain mode, the default one in session-argument mode. It is
 * created on first need over the bridge's daemon connection and held by a lane of its own (`DaemonLane`), which binds
 * it; a lost lane is bound again on the next call, because a binding lives only as long as the connection that made it.
 */
export class BoundSessionSlot {
  #session: string | undefined;
  #generation = 0;
  #created = false;
  #lane: DaemonLane | undefined;
  #pending: Promise<BoundSession> | undefined;

  constructor(private readonly options: BoundSessionOptions) {}

  async ensure(): Promise<BoundSession> {
    const { link } = this.options;
    const client = await link.client();
    const session = this.#session;
    if (session !== undefined && this.lane(link.generation) !== undefined) {
      return { client, session };
    }
    this.#pending ??= this.#attach(client, link.generation).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** The session this slot holds or last held, if it has had one. */
  get session(): string | undefined {
    return this.#session;
  }

  /** Resolves once a create or bind under way has finished, so a shutdown does not miss a session being made. */
  async settled(): Promise<void> {
    await this.#pending?.catch(() => undefined);
  }

  /** The lane holding the session, when it is bound and nothing about it is being settled. */
  lane(generation: number): DaemonLane | undefined {
    return this.#pending === undefined && this.#generation === generation && this.#lane?.open === true ? this.#lane : undefined;
  }

  /**
   * The daemon stopped answering: the calls on the lane get `error`, and the next call binds the session on a new lane.
   * With `generation`, only a lane bound over that connection.
   */
  abandon(error: TabmuxError, generation?: number): void {
    if (generation === undefined || generation === this.#generation) {
      this.#lane?.abandon(error);
    }
  }

  /** Lets the session go: its lane is closed (the session itself is closed by whoever created it). */
  close(): void {
    this.#lane?.close();
  }

  /** The session this bridge created on the given connection generation, which it must close when it leaves. */
  createdIn(generation: number): string | undefined {
    return this.#created && this.#generation === generation ? this.#session : undefined;
  }

  async #attach(client: DaemonClient, generation: number): Promise<BoundSession> {
    const { fixedSession, profile, logger } = this.options;
    if (fixedSession !== undefined) {
      this.#set(fixedSession, generation, false, await this.#bind(client, fixedSession));
      return { client, session: fixedSession };
    }
    const previous = this.#session;
    if (previous !== undefined) {
      // The connection dropped but the daemon may still be the same one: keep the agent's session if it is there.
      try {
        this.#set(previous, generation, this.#created, await this.#bind(client, previous));
        return { client, session: previous };
      } catch (error) {
        if (!(error instanceof TabmuxError) || !isSessionGone(error.code)) {
          throw error;
        }
      }
    }
    const info = await client.createSession(this.options.label().slice(0, 200));
    this.#set(info.id, generation, true, await this.#bind(client, info.id));
    logger.info(`session ${info.id} created and bound${info.label === null ? '' : ` (${info.label})`}`);
    if (previous === undefined) {
      return { client, session: info.id };
    }
    const note = `Note: the tabmux daemon for profile ${profile} restarted and its browser did not survive, so your session could not be kept: this call ran in a new session (${info.id}) with a fresh tab. Pages and uid tokens from before are gone: navigate again and take a new snapshot.`;
    return { client, session: info.id, note };
  }

  /** A lane bound to the session; one still open (the daemon kept it through a drop of the other connection) is kept. */
  async #bind(client: DaemonClient, session: string): Promise<DaemonLane> {
    const lane = this.#lane;
    if (lane?.open === true && this.#session === session) {
      return lane;
    }
    lane?.close();
    return DaemonLane.open(client.path, session, this.options.logger);
  }

  #set(session: string, generation: number, created: boolean, lane: DaemonLane): void {
    this.#session = session;
    this.#generation = generation;
    this.#created = created;
    this.#lane = lane;
  }
}
