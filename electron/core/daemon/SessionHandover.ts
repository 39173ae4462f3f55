import { join } from 'node:path';
import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../platform/Logger.js';
import { profileDataDir, type TabmuxPaths } from '../platform/paths.js';
import type { Router } from '../router/Router.js';
import { readSessionJournal, SessionJournal, type JournaledSession } from '../router/SessionJournal.js';

export interface SessionHandoverOptions {
  paths: TabmuxPaths;
  profile: string;
  logger: Logger;
  router: Router;
}

/** How long a reply waits at most for the session journal's write (a local file; a disk that hangs holds no reply longer). */
const JOURNAL_SETTLE_LIMIT_MS = 1000;

/**
 * The sessions one daemon hands to the next over a Chrome the next one adopts, through the session journal: what a
 * daemon that died left is read before anything is written, its sessions come back when this daemon adopted its
 * Chrome, and the journal follows every change from then on.
 */
export class SessionHandover {
  readonly #options: SessionHandoverOptions;
  /** The sessions as they change, for a daemon that adopts this one's Chrome should this one die (see SessionJournal). */
  readonly #journal: SessionJournal;

  constructor(options: SessionHandoverOptions) {
    this.#options = options;
    const { paths, profile, logger } = options;
    this.#journal = new SessionJournal(join(profileDataDir(paths, profile), 'sessions.json'), (error) => logger.warn(`session journal: ${TabmuxError.from(error).message}`));
  }

  /** The sessions the daemon that died left; read before anything of this daemon's is written. */
  read(): Promise<JournaledSession[]> {
    return readSessionJournal(this.#journal.path);
  }

  /**
   * The sessions of the daemon that died come back when this daemon adopted its Chrome, whose tabs they own (on a
   * new Chrome their tabs are gone, and so are they). From then on the journal follows every change.
   */
  async restore(journaled: readonly JournaledSession[], adopted: boolean): Promise<void> {
    const { logger, router } = this.#options;
    if (adopted && journaled.length > 0) {
      const restored = await router.restoreSessions(journaled).catch((error: unknown) => {
        logger.warn(`could not restore the sessions of the daemon that died: ${TabmuxError.from(error).message}`);
        return [];
      });
      logger.info(`restored ${restored.length} of ${journaled.length} session(s) of the daemon that died`);
    }
    const write = (): void => this.#journal.schedule(() => router.journal(), (written) => router.journalMatches(written));
    // At the change itself (a session that ended included), so the reply that tells of it waits for its write
    // (ControlService's `settled`).
    router.onSessionChange(write);
    write();
  }

  /** What a reply waits for before it leaves: the sessions' changes on file, or its limit (ControlService's `settled`). */
  settled(): Promise<void> | undefined {
    return this.#journal.settle(JOURNAL_SETTLE_LIMIT_MS);
  }

  /** The daemon stops and leaves Chrome running: the sessions stay in the journal for the next daemon to adopt. */
  async handOver(): Promise<void> {
    const { logger, router } = this.#options;
    await this.#journal.seal(router.journal()).catch((error: unknown) => logger.warn(`could not write the session journal: ${TabmuxError.from(error).message}`));
  }

  /** Removes the journal, with the sessions in it. */
  async clear(): Promise<void> {
    await this.#journal.clear().catch((error: unknown) => this.#options.logger.warn(`could not remove the session journal: ${TabmuxError.from(error).message}`));
  }
}
