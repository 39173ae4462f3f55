import { join } from 'node:path';
import type { ActivityEntry, ActivityQueryResult } from '../../../shared/activity.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { ActivityLogHealth, TabPicture } from '../../../shared/model.js';
import { ActivityLogStore } from '../activity/ActivityLogStore.js';
import { ActivityPictures } from '../activity/ActivityPictures.js';
import { ActivityRecorder } from '../activity/ActivityRecorder.js';
import type { CallBeginObserver, CallObserver } from '../activity/CallRecord.js';
import { CallsInFlight, readCallsInFlight, type CallInFlight } from '../activity/CallsInFlight.js';
import { readActivityLog, type ActivityFilter } from '../activity/readActivityLog.js';
import type { Logger } from '../platform/Logger.js';
import { profileActivityDir, profileDataDir, type TabmuxPaths } from '../platform/paths.js';
import type { ProfileEntry } from '../profile/ProfileStore.js';
import { activityLogSettings } from './daemonSettings.js';

export interface DaemonActivityOptions {
  paths: TabmuxPaths;
  profile: ProfileEntry;
  logger: Logger;
  /** When the daemon started: entry ids start from it, and a call a dead daemon left runs to it. */
  startedAt: number;
  /** Whether the daemon is stopping (a call it cuts off is logged as `cancelled`). */
  stopping: () => boolean;
  /** Each entry once it is queued for the disk (the `activity` event). */
  publish: (entry: ActivityEntry) => void;
  /** A picture of a tab after a page-changing call. */
  capture: (tabId: string) => Promise<TabPicture | undefined>;
  /** The log's writes failed, or succeed again: the daemon's state says so. */
  healthChanged: () => void;
}

/** The log's parts, when the profile keeps one. */
interface ActivityParts {
  store: ActivityLogStore;
  recorder: ActivityRecorder;
  pictures: ActivityPictures;
  inFlight: CallsInFlight;
}

/**
 * The profile's activity log as its daemon keeps it: the writer and its pictures, and the file of calls under way
 * that lets the next daemon log the calls a crash cut off. With the log turned off in the profile nothing is
 * recorded, and what earlier daemons wrote can still be read.
 */
export class DaemonActivity {
  readonly #options: DaemonActivityOptions;
  readonly #log: ActivityParts | undefined;

  constructor(options: DaemonActivityOptions) {
    this.#options = options;
    this.#log = this.#create();
  }

  /** Told about every call once it is answered (the router's `observe`); undefined with the log off. */
  get observe(): CallObserver | undefined {
    return this.#log?.recorder.record;
  }

  /** Told when a call begins (the router's `began`); undefined with the log off. */
  get began(): CallBeginObserver | undefined {
    const inFlight = this.#log?.inFlight;
    return inFlight && ((call) => inFlight.begin({ session: call.sessionId, label: call.label, tool: call.tool, at: call.at, page: call.pageBefore }));
  }

  /** Whether writes succeed; undefined with the log off. */
  get health(): ActivityLogHealth | undefined {
    return this.#log?.store.health;
  }

  /** The calls a daemon that died left under way; read before this daemon writes anything of its own. */
  async leftUnderWay(): Promise<CallInFlight[]> {
    return this.#log ? readCallsInFlight(this.#log.inFlight.path) : [];
  }

  /**
   * Opens the log (its folder, retention), logs the calls a daemon that died left under way as cut off by its end
   * (unless their entry made it: the file of calls in flight is written a moment after a change), then starts that
   * file afresh and trims the pictures.
   */
  async open(interrupted: readonly CallInFlight[]): Promise<void> {
    const log = this.#log;
    if (!log) {
      return;
    }
    const { logger } = this.#options;
    await log.store.start();
    await this.#logInterrupted(log, interrupted);
    await log.inFlight.write().catch((error: unknown) => logger.warn(`calls in flight: ${TabmuxError.from(error).message}`));
    await log.pictures.retain().catch((error: unknown) => logger.warn(`activity pictures: ${TabmuxError.from(error).message}`));
  }

  /** A picture of the activity log (base64 JPEG), or null when there is none. */
  async picture(name: string): Promise<string | null> {
    const { paths, profile } = this.#options;
    const pictures = this.#log?.pictures ?? new ActivityPictures(profileActivityDir(paths, profile.name), activityLogSettings(profile.config));
    await this.#log?.recorder.picturesTaken();
    return (await pictures.read(name))?.toString('base64') ?? null;
  }

  /** The newest entries; still readable from the log's files when the profile no longer records. */
  async query(filter: ActivityFilter): Promise<ActivityQueryResult> {
    const log = this.#log;
    if (!log) {
      return readActivityLog(profileActivityDir(this.#options.paths, this.#options.profile.name), filter);
    }
    await log.recorder.flush();
    return log.store.query(filter);
  }

  /** Resolves once the pictures asked for so far are taken (while the browser is still there, on a stop). */
  picturesTaken(): Promise<void> {
    return this.#log?.recorder.picturesTaken() ?? Promise.resolve();
  }

  /**
   * The daemon stops, its calls ended and logged: nothing is left under way for a next daemon, and every entry is
   * written before the log closes.
   */
  async close(): Promise<void> {
    const log = this.#log;
    if (!log) {
      return;
    }
    await log.inFlight.clear().catch((error: unknown) => this.#options.logger.warn(`could not remove the calls in flight: ${TabmuxError.from(error).message}`));
    await log.recorder.flush().catch(() => undefined);
    await log.store.close().catch(() => undefined);
  }

  #create(): ActivityParts | undefined {
    const { paths, profile, logger, startedAt } = this.#options;
    const settings = activityLogSettings(profile.config);
    if (!settings.enabled) {
      return undefined;
    }
    const log = logger.child('activity');
    const store = new ActivityLogStore({
      dir: profileActivityDir(paths, profile.name),
      maxBytes: settings.maxBytes,
      maxAgeMs: settings.maxAgeMs,
      onError: (error) => log.warn(`activity log: ${TabmuxError.from(error).message}`),
      // The person hears of it (daemon.log, status, the dashboard); agents' calls go on meanwhile.
      onHealth: (health) => {
        if (health.error === null) {
          log.info(`activity log: writing again${health.dropped > 0 ? `; ${health.dropped} entries were given up on while it failed` : ''}`);
        } else {
          log.warn(`${health.error}; ${health.pending} entries wait in memory and are written once it succeeds`);
        }
        this.#options.healthChanged();
      },
    });
    const pictures = new ActivityPictures(store.dir, settings);
    const recorder = new ActivityRecorder({
      store,
      keepValues: settings.keepValues,
      startedAt,
      stopping: this.#options.stopping,
      emit: this.#options.publish,
      pictures: {
        store: pictures,
        capture: this.#options.capture,
        onError: (error) => log.debug(`activity picture: ${TabmuxError.from(error).message}`),
      },
    });
    const inFlight = new CallsInFlight(join(profileDataDir(paths, profile.name), 'calls-in-flight.json'), (error) => logger.warn(`calls in flight: ${TabmuxError.from(error).message}`));
    return { store, recorder, pictures, inFlight };
  }

  async #logInterrupted(log: ActivityParts, calls: readonly CallInFlight[]): Promise<void> {
    if (calls.length === 0) {
      return;
    }
    const since = Math.min(...calls.map((call) => call.at));
    const logged = await log.store.query({ since, limit: 100_000 }).catch(() => ({ entries: [] }));
    const seen = new Set(logged.entries.map((entry) => `${entry.session} ${entry.tool} ${String(entry.at)}`));
    const cut = calls.filter((call) => !seen.has(`${call.session} ${call.tool} ${String(call.at)}`));
    for (const call of cut) {
      await log.recorder.record({
        sessionId: call.session,
        label: call.label,
        tool: call.tool,
        args: {},
        at: call.at,
        durationMs: Math.max(0, this.#options.startedAt - call.at),
        pageBefore: call.page,
        pageAfter: null,
        tabAfter: null,
        opened: [],
        error: new TabmuxError(
          'daemon_crashed',
          "the tabmux daemon ended (it was killed or crashed) while this call ran, so whether it took effect is unknown; the time shown runs to the next daemon's start, and the arguments were not kept",
        ),
      });
    }
    this.#options.logger.warn(`logged ${cut.length} call(s) the daemon that died left under way`);
  }
}
