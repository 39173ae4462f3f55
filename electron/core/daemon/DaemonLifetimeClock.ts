import type { DaemonLifetime, DaemonStartedBy } from '../../../shared/model.js';
import type { Logger } from '../platform/Logger.js';
import type { ProfileEntry } from '../profile/ProfileStore.js';
import type { Router } from '../router/Router.js';
// In the order the daemon first loaded them.
import { idleExitMs } from '../profile/settings.js';
import { IdleExit } from '../process/IdleExit.js';
import { formatDuration } from '../../../shared/daemonLifetime.js';

export interface DaemonLifetimeClockOptions {
  profile: ProfileEntry;
  logger: Logger;
  /** Who started the daemon (`--started-by`). */
  startedBy: DaemonStartedBy;
  router: Router;
  /** Stops serving new clients; called in the same turn as the clock's last look (see IdleExit). */
  refuseNew: () => void;
  /** Stops the daemon. */
  stop: () => void;
}

/**
 * How long a daemon lives (see DaemonLifetime): who started it, and for one started on demand, the idle clock that
 * stops it. The clock counts the daemon's sessions and its clients (see ControlService's `clientsChanged`).
 */
export class DaemonLifetimeClock {
  readonly #options: DaemonLifetimeClockOptions;
  /** Who started the daemon; `daemon start` on a daemon started on demand makes it one that stays (see `keep`). */
  #startedBy: DaemonStartedBy;
  /** The idle clock of a daemon started on demand, once it serves; undefined for one that runs until it is stopped. */
  #idle: IdleExit | undefined;
  /** Clients connected to the socket now. */
  #clients = 0;
  /** Connections that have not said their hello yet (see ControlService's `openingChanged`). */
  #opening = 0;

  constructor(options: DaemonLifetimeClockOptions) {
    this.#options = options;
    this.#startedBy = options.startedBy;
  }

  /** Who started this daemon, and whether it exits when idle (see DaemonLifetime). */
  get lifetime(): DaemonLifetime {
    const startedBy = this.#startedBy;
    const afterMs = startedBy === 'demand' ? idleExitMs(this.#options.profile.config) : 0;
    return { startedBy, idleExitMs: afterMs > 0 ? afterMs : null, idleSince: this.#idle?.idleSince ?? null };
  }

  /**
   * A daemon started on demand exits with its Chrome once it has had no session and no client for the profile's idle
   * time: nobody asked for it to stay, and nobody may remember to stop it. New clients are refused in the same turn
   * as the last look, so none is served by a daemon on its way out; they start another (connectOrStart).
   */
  start(): void {
    const { lifetime } = this;
    if (lifetime.idleExitMs === null) {
      return;
    }
    const afterMs = lifetime.idleExitMs;
    const { logger, router } = this.#options;
    this.#idle = new IdleExit({
      afterMs,
      inUse: () => this.#clients > 0 || router.sessionCount > 0,
      holdsOff: () => this.#opening > 0,
      exit: () => {
        this.#options.refuseNew();
        logger.info(`no session and no client for ${formatDuration(afterMs)}; this daemon was started on demand, so it stops`);
        this.#options.stop();
      },
    });
    router.onSessionChange(() => this.#idle?.changed());
    this.#idle.changed();
  }

  /**
   * `daemon start` on a daemon started on demand: a person asked for it, so from now on it stays until it is stopped,
   * as one that `daemon start` started.
   */
  keep(): DaemonLifetime {
    if (this.#startedBy === 'demand') {
      this.#startedBy = 'daemon-start';
      this.#idle?.close();
      this.#idle = undefined;
      this.#options.logger.info('daemon start asked for this daemon: it stays until it is stopped');
    }
    return this.lifetime;
  }

  clientsChanged(count: number): void {
    this.#clients = count;
    this.#idle?.changed();
  }

  openingChanged(count: number): void {
    this.#opening = count;
  }

  /** The daemon is stopping: the clock stops with it. */
  close(): void {
    this.#idle?.close();
  }
}
