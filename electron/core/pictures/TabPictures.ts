import { TabmuxError } from '../../../shared/errors.js';
import type { TabPicture } from '../../../shared/model.js';
import type { PictureInput } from '../../../shared/pictureInput.js';
import type { BrowserTab } from '../browser/BrowserTab.js';
import type { CdpConnection } from '../browser/CdpConnection.js';
import type { Logger } from '../platform/Logger.js';
import { DEFAULT_PICTURE_LIMITS, type PictureLimits } from './PictureLimits.js';
import { PictureWatches, type PictureWatch } from './PictureWatches.js';
import { TabScreencast } from './TabScreencast.js';

/** What live pictures need of a browser run: its CDP connection and its tabs as the browser reports them. */
export interface PictureRun {
  connection: CdpConnection;
  tabs: {
    get(tabId: string): BrowserTab | undefined;
    on(event: 'closed', listener: (tab: BrowserTab) => void): unknown;
    off(event: 'closed', listener: (tab: BrowserTab) => void): unknown;
  };
}

/**
 * Live pictures of a profile's tabs: screencasts only for the tabs someone watches, each at the largest size asked
 * for and within the profile's caps, and each frame only to the connections that watch its tab. Outlives browser
 * runs: a relaunched or reconnected browser gets the same tabs watched again, as far as they still exist.
 */
export class TabPictures {
  readonly #limits: PictureLimits;
  readonly #logger: Logger;
  readonly #watches: PictureWatches;
  readonly #casts = new Map<string, TabScreencast>();
  readonly #peers = new Map<string, (picture: TabPicture) => void>();
  #run: PictureRun | undefined;
  #stills = 0;
  #reconciling: Promise<void> = Promise.resolve();
  readonly #onClosed = (): void => void this.#reconcile();

  constructor(options: { logger: Logger; limits?: PictureLimits }) {
    this.#limits = options.limits ?? DEFAULT_PICTURE_LIMITS;
    this.#logger = options.logger;
    this.#watches = new PictureWatches(this.#limits.maxTabs);
  }

  /** A new browser run (or none while the browser is away): casts of the old one end with its connection. */
  useRun(run: PictureRun | undefined): Promise<void> {
    this.#run?.tabs.off('closed', this.#onClosed);
    this.#run = run;
    run?.tabs.on('closed', this.#onClosed);
    const old = [...this.#casts.values()];
    this.#casts.clear();
    return Promise.all(old.map((cast) => cast.stop())).then(() => this.#reconcile());
  }

  /** Replaces what a connection watches; resolves with the tabs of its list that are captured now. */
  async watch(peerId: string, deliver: (picture: TabPicture) => void, watches: readonly PictureWatch[]): Promise<string[]> {
    this.#watches.set(peerId, watches);
    if (watches.length === 0) {
      this.#peers.delete(peerId);
    } else {
      this.#peers.set(peerId, deliver);
    }
    await this.#reconcile();
    const watching = watches.map((watch) => watch.tabId).filter((tabId) => this.#casts.has(tabId));
    for (const tabId of watching) {
      // The page may not paint again for a long time; the newcomer gets what the others saw last.
      const last = this.#casts.get(tabId)?.last;
      if (last) {
        deliver(last);
      }
    }
    return [...new Set(watching)];
  }

  /** A connection stops watching (it asked, or it went away): casts nobody else needs stop. */
  unwatch(peerId: string): Promise<void> {
    this.#watches.drop(peerId);
    this.#peers.delete(peerId);
    return this.#reconcile();
  }

  /** A person's input into a tab the connection watches live. Who may send it is the router's call (takeover). */
  async input(peerId: string, tabId: string, input: PictureInput): Promise<void> {
    const cast = this.#casts.get(tabId);
    if (!cast || !this.#watches.watchesLive(peerId, tabId)) {
      throw new TabmuxError('unknown_page', `tab ${tabId} is not open in this connection's live view; watch it live (pictures.watch with size live) before sending input`);
    }
    await cast.input(input);
  }

  /**
   * One picture of a tab (the activity log's view after an action): the next frame it paints, or, for a page that
   * does not paint again within `timeoutMs`, the last one seen. Undefined when the tab cannot be captured.
   */
  async still(tabId: string, timeoutMs = 2000): Promise<TabPicture | undefined> {
    const peerId = `still:${++this.#stills}`;
    let armed = false;
    let settle: (picture: TabPicture | undefined) => void = () => undefined;
    const settled = new Promise<TabPicture | undefined>((resolve) => {
      settle = resolve;
    });
    const timer = setTimeout(() => settle(this.#casts.get(tabId)?.last ?? undefined), timeoutMs);
    try {
      // A frame handed over while the watch is set up is an old one; only what the tab paints after counts.
      await this.watch(peerId, (picture) => armed && settle(picture), [{ tabId, size: 'thumb' }]);
      armed = true;
      return await settled;
    } finally {
      clearTimeout(timer);
      await this.unwatch(peerId);
    }
  }

  /** Tabs captured now (status, tests). */
  get captured(): string[] {
    return [...this.#casts.keys()];
  }

  async close(): Promise<void> {
    for (const peerId of [...this.#peers.keys()]) {
      this.#watches.drop(peerId);
    }
    this.#peers.clear();
    await this.useRun(undefined);
  }

  #deliver(picture: TabPicture): void {
    for (const peerId of this.#watches.watchers(picture.tabId)) {
      this.#peers.get(peerId)?.(picture);
    }
  }

  #reconcile(): Promise<void> {
    const next = this.#reconciling.then(() => this.#reconcileOnce());
    this.#reconciling = next.catch(() => undefined);
    return next;
  }

  async #reconcileOnce(): Promise<void> {
    const run = this.#run;
    const wanted = run ? this.#watches.wanted() : new Map<string, never>();
    for (const [tabId, cast] of [...this.#casts]) {
      if (!wanted.has(tabId) || !run?.tabs.get(tabId)) {
        this.#casts.delete(tabId);
        await cast.stop();
      }
    }
    if (!run) {
      return;
    }
    for (const [tabId, size] of wanted) {
      const limit = this.#limits[size];
      const cast = this.#casts.get(tabId);
      if (cast) {
        if (cast.limit !== limit) {
          await cast.setLimit(limit).catch((error: unknown) => this.#logger.debug(`tab ${tabId}: could not resize its picture: ${TabmuxError.from(error).message}`));
        }
        continue;
      }
      const pageTargetId = run.tabs.get(tabId)?.pageTargetId;
      if (!pageTargetId) {
        continue;
      }
      try {
        const started = await TabScreencast.start(run.connection, tabId, pageTargetId, limit, (picture) => this.#deliver(picture));
        if (this.#run === run) {
          this.#casts.set(tabId, started);
        } else {
          await started.stop();
        }
      } catch (error) {
        // The tab closed meanwhile, or the browser went away; the next change tries again.
        this.#logger.debug(`tab ${tabId}: could not start its picture: ${TabmuxError.from(error).message}`);
      }
    }
  }
}
