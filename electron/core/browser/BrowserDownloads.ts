import { promises as fs } from 'node:fs';
import { join, relative } from 'node:path';
import type { Protocol } from 'devtools-protocol';
import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../platform/Logger.js';
import type { CdpConnection } from './CdpConnection.js';
import { downloadName, placeDownload } from './downloadFiles.js';

/** What a profile does with downloads: keep them in the session's folder (`session`), or refuse them (`off`). */
export interface DownloadSettings {
  mode: 'session' | 'off';
  /** The largest file one download may write; a download past it is cancelled and its bytes deleted. */
  maxBytes: number;
  /** The most bytes one session's downloads may keep, all together; a download that would pass it is not kept. */
  sessionMaxBytes: number;
  /** The most files one session's downloads may keep; a download past it is not kept. */
  sessionMaxFiles: number;
}

/**
 * What one session's downloads have kept: files and their bytes, counted against the profile's limits for one session
 * (with the downloads of it still running, which only the browser's run that has them knows).
 */
export interface DownloadTally {
  keptBytes: number;
  keptFiles: number;
}

export function newDownloadTally(): DownloadTally {
  return { keptBytes: 0, keptFiles: 0 };
}

/** How one download ended, as its owner is told. `name` is the file name the page suggested, made safe. */
export type DownloadOutcome =
  | { kind: 'saved'; name: string; path: string; bytes: number }
  | { kind: 'refused'; name: string; why: 'off' | 'external' }
  | { kind: 'too_large'; name: string; maxBytes: number }
  | { kind: 'over_limit'; name: string; limit: 'bytes' | 'files'; maxBytes: number; maxFiles: number }
  | { kind: 'failed'; name: string; reason: string };

/** A session whose tab started a download: where its downloads go, and how it hears of each. */
export interface DownloadOwner {
  /** A folder of tabmux's own, and the folders below it that hold the session's downloads (created as needed). */
  root: string;
  segments: readonly string[];
  tell: (outcome: DownloadOutcome) => void;
  /** What the owner's downloads hold so far; the same object for every download of one session. */
  tally: DownloadTally;
}

export interface BrowserDownloadsOptions {
  /** A browser tabmux launched (its downloads are all tabmux's to place) or one it connects to (the user's own). */
  browser: 'launched' | 'external';
  settings: DownloadSettings;
  /** Where a launched browser writes every download first (each as its guid), out of every agent's reach. */
  stagingDir: string;
  /** Where a launched browser's downloads from tabs nobody owns (a person's) are kept. */
  unownedDir: string;
  /**
   * The session owning the tab a frame is in, from the browser's own ids; `nobody` for a tab no session owns, `untold`
   * for a frame whose tab could not be found.
   */
  ownerOf: (frameId: string) => Promise<DownloadOwner | 'nobody' | 'untold'>;
  logger: Logger;
}

/** How many page targets' openers are remembered (popups come and go; only the latest matter). */
const MAX_OPENERS = 256;

interface Download {
  guid: string;
  name: string;
  owner: Promise<DownloadOwner | undefined>;
  /** Events of one download are handled in order, each after its owner is known. */
  chain: Promise<void>;
  tooLarge: boolean;
  /** The session's limit this download would pass, once known: it is cancelled and nothing of it is kept. */
  overLimit: 'bytes' | 'files' | undefined;
  /** Its owner once known, for a launched browser keeping downloads: its progress counts against the owner's tally. */
  counted: DownloadOwner | undefined;
  /** The bytes it has written so far, as the browser last reported. */
  received: number;
  told: boolean;
}

/**
 * Where downloads go, decided on the daemon's own connection (`Browser.setDownloadBehavior` per browser context, with
 * its download events), and by whose tab started each one, never by anything a page wrote:
 * - a browser tabmux launched writes every download into a staging folder of tabmux's own under its guid; once done,
 *   a session's download moves into `<files>/<session>/downloads/` and the session is told where, a download from a
 *   tab nobody owns (a person's) into the profile's downloads folder. Past `maxBytes` a download is cancelled and its
 *   bytes are deleted. With downloads `off` the browser refuses them (`deny`) and the session is told.
 * - in a browser tabmux does not run (the user's own) the default context keeps the user's own behaviour (only its
 *   events are turned on): the user's downloads are left alone, and a session's are cancelled as soon as the browser
 *   announces them, since tabmux cannot put them in the session's folder without changing where the user's go.
 *   Contexts the daemon made (isolated contexts) refuse downloads outright.
 * The browser forgets these settings when the daemon's connection goes.
 */
export class BrowserDownloads {
  readonly #connection: CdpConnection;
  readonly #options: BrowserDownloadsOptions;
  readonly #downloads = new Map<string, Download>();
  /** Contexts besides the default one that downloads may come from (a cancel must name the right one). */
  readonly #contexts = new Set<string>();
  /**
   * Recent page targets' openers, as the browser announced each page: a popup that turns into a download is closed
   * by the browser at once, often before the daemon watches it, and then its opener tells whose it was.
   */
  readonly #openers = new Map<string, string>();
  /**
   * The owner of downloads whose tab could not be told (a frame gone before the lookup found its page), so that a page
   * gains nothing by hiding which tab it is. In a browser tabmux launched they count together as one session's, kept
   * in the folder for tabs nobody owns; a person's own downloads, whose tab is known, are not counted with them. In a
   * browser the user runs they are cancelled as a session's are: the user's own tabs are known.
   */
  readonly #untold: DownloadOwner;

  private constructor(connection: CdpConnection, options: BrowserDownloadsOptions) {
    this.#connection = connection;
    this.#options = options;
    this.#untold = { root: options.unownedDir, segments: [], tally: newDownloadTally(), tell: (outcome) => this.#logUntold(outcome) };
  }

  static async install(connection: CdpConnection, options: BrowserDownloadsOptions): Promise<BrowserDownloads> {
    const downloads = new BrowserDownloads(connection, options);
    if (options.browser === 'launched') {
      // What an earlier run left half-written belongs to nobody now.
      await fs.rm(options.stagingDir, { recursive: true, force: true });
      await fs.mkdir(options.stagingDir, { recursive: true, mode: 0o700 });
    }
    connection.on('Target.targetCreated', (event: Protocol.Target.TargetCreatedEvent) => downloads.#created(event.targetInfo));
    connection.on('Browser.downloadWillBegin', (event: Protocol.Browser.DownloadWillBeginEvent) => downloads.#began(event));
    connection.on('Browser.downloadProgress', (event: Protocol.Browser.DownloadProgressEvent) => downloads.#progress(event));
    await connection.send('Browser.setDownloadBehavior', downloads.#behavior(false));
    return downloads;
  }

  /** Sets a new browser context's downloads (an isolated context the daemon made) before any tab opens in it. */
  async prepareContext(browserContextId: string): Promise<void> {
    this.#contexts.add(browserContextId);
    await this.#connection.send('Browser.setDownloadBehavior', { ...this.#behavior(true), browserContextId });
  }

  #behavior(ownContext: boolean): Protocol.Browser.SetDownloadBehaviorRequest {
    const { browser, settings, stagingDir } = this.#options;
    if (browser === 'external') {
      return { behavior: ownContext ? 'deny' : 'default', eventsEnabled: true };
    }
    return settings.mode === 'off' ? { behavior: 'deny', eventsEnabled: true } : { behavior: 'allowAndName', downloadPath: stagingDir, eventsEnabled: true };
  }

  #created(info: Protocol.Target.TargetInfo): void {
    if (info.type !== 'page' || info.openerId === undefined) {
      return;
    }
    this.#openers.set(info.targetId, info.openerId);
    if (this.#openers.size > MAX_OPENERS) {
      for (const oldest of this.#openers.keys()) {
        this.#openers.delete(oldest);
        break;
      }
    }
  }

  /**
   * The owner of the tab a frame is in; for a popup gone before it was watched, its opener's; for a frame whose tab
   * could not be told, the owner of such downloads (see `#untold`). Undefined for a tab nobody owns.
   */
  async #ownerOf(frameId: string): Promise<DownloadOwner | undefined> {
    let found = await this.#options.ownerOf(frameId);
    const opener = this.#openers.get(frameId);
    if (typeof found === 'string' && opener !== undefined) {
      found = await this.#options.ownerOf(opener);
    }
    if (found === 'untold') {
      return this.#untold;
    }
    return found === 'nobody' ? undefined : found;
  }

  /** What became of a download whose tab could not be told: nobody to tell but the daemon's log. */
  #logUntold(outcome: DownloadOutcome): void {
    const { logger, settings } = this.#options;
    const what = `a download whose tab could not be told (${JSON.stringify(outcome.name)})`;
    switch (outcome.kind) {
      case 'saved':
        logger.info(`${what} was saved to ${outcome.path} (${outcome.bytes} bytes)`);
        break;
      case 'over_limit':
        logger.warn(`${what} was not kept: such downloads keep at most ${settings.sessionMaxFiles} files and ${settings.sessionMaxBytes} bytes together, as one session's`);
        break;
      case 'too_large':
        logger.warn(`${what} was cancelled at ${outcome.maxBytes} bytes`);
        break;
      case 'refused':
        logger.info(outcome.why === 'off' ? `${what} was refused: downloads are off` : `${what} was cancelled: a browser tabmux did not launch keeps only its user's own downloads`);
        break;
      case 'failed':
        logger.warn(`${what} failed: ${outcome.reason}`);
        break;
    }
  }

  #began(event: Protocol.Browser.DownloadWillBeginEvent): void {
    const download: Download = {
      guid: event.guid,
      name: downloadName(event.suggestedFilename),
      owner: this.#ownerOf(event.frameId).catch(() => undefined),
      chain: Promise.resolve(),
      tooLarge: false,
      overLimit: undefined,
      counted: undefined,
      received: 0,
      told: false,
    };
    this.#downloads.set(event.guid, download);
    this.#then(download, async (owner) => {
      const { browser, settings } = this.#options;
      if (browser === 'external') {
        if (owner) {
          await this.#cancel(download);
        } else {
          // A tab nobody owns is the user's: their download is theirs.
          this.#downloads.delete(download.guid);
        }
      } else if (settings.mode === 'off') {
        this.#tell(download, owner, { kind: 'refused', name: download.name, why: 'off' });
      } else if (owner && this.#downloads.has(download.guid)) {
        download.counted = owner;
        if (this.#wouldPass(owner.tally, 0, this.#running(owner.tally).files) === 'files') {
          this.#passLimit(download, 'files');
        }
      }
    });
  }

  /** Cancels a download that would take its session past one of its limits; the owner is told when it ends. */
  #passLimit(download: Download, limit: 'bytes' | 'files'): void {
    download.overLimit = limit;
    void this.#cancel(download);
  }

  /** What the owner's downloads still running on this browser (and not being cancelled) hold so far. */
  #running(tally: DownloadTally): { files: number; bytes: number } {
    let files = 0;
    let bytes = 0;
    for (const download of this.#downloads.values()) {
      if (download.counted?.tally === tally && !download.tooLarge && download.overLimit === undefined) {
        files += 1;
        bytes += download.received;
      }
    }
    return { files, bytes };
  }

  /** Whether keeping `bytes` more, in `files` more files, would take the owner past a session's limits, and which. */
  #wouldPass(tally: DownloadTally, bytes: number, files: number): 'bytes' | 'files' | undefined {
    const { sessionMaxBytes, sessionMaxFiles } = this.#options.settings;
    if (tally.keptFiles + files > sessionMaxFiles) {
      return 'files';
    }
    return tally.keptBytes + bytes > sessionMaxBytes ? 'bytes' : undefined;
  }

  #progress(event: Protocol.Browser.DownloadProgressEvent): void {
    const download = this.#downloads.get(event.guid);
    if (!download) {
      return;
    }
    const { maxBytes } = this.#options.settings;
    const capped = this.#options.browser === 'launched';
    if (capped && event.state === 'inProgress' && !download.tooLarge && (event.receivedBytes > maxBytes || event.totalBytes > maxBytes)) {
      // At once, whoever owns it: every byte past the cap is a byte too many on tabmux's disk. (The user's own
      // downloads in their own browser are theirs; an agent's there is cancelled when it begins.)
      download.tooLarge = true;
      void this.#cancel(download);
    }
    download.received = event.receivedBytes;
    const counted = download.counted;
    // Every running download of the session counts with what it has written so far: many at once pass the session's
    // limit as surely as one after another.
    if (counted && event.state === 'inProgress' && !download.tooLarge && download.overLimit === undefined && this.#wouldPass(counted.tally, this.#running(counted.tally).bytes, 0) === 'bytes') {
      this.#passLimit(download, 'bytes');
    }
    if (event.state === 'inProgress') {
      return;
    }
    this.#downloads.delete(event.guid);
    this.#then(download, async (owner) => {
      if (!capped) {
        // A session's download in the user's browser, cancelled when it began (or, if tiny, done before that).
        this.#tell(
          download,
          owner,
          event.state === 'canceled'
            ? { kind: 'refused', name: download.name, why: 'external' }
            : { kind: 'failed', name: download.name, reason: 'it finished before tabmux could cancel it, so the browser kept it where it keeps its own downloads' },
        );
        return;
      }
      const tooLarge = download.tooLarge || (capped && event.receivedBytes > maxBytes);
      // Checked again as it ends: a download may be over before its owner was known.
      const overLimit = download.overLimit ?? (owner && !tooLarge && event.state === 'completed' ? this.#wouldPass(owner.tally, event.receivedBytes, 1) : undefined);
      if (event.state === 'canceled' || tooLarge || overLimit !== undefined) {
        await this.#removeStaged(download, event.filePath);
        if (tooLarge) {
          this.#tell(download, owner, { kind: 'too_large', name: download.name, maxBytes });
        } else if (overLimit !== undefined) {
          const { sessionMaxBytes, sessionMaxFiles } = this.#options.settings;
          this.#tell(download, owner, { kind: 'over_limit', name: download.name, limit: overLimit, maxBytes: sessionMaxBytes, maxFiles: sessionMaxFiles });
        } else {
          this.#tell(download, owner, { kind: 'failed', name: download.name, reason: 'it was cancelled before it finished' });
        }
        return;
      }
      await this.#place(download, owner, event);
    });
  }

  /** A finished download of a launched browser: into its session's folder, or the folder for tabs nobody owns. */
  async #place(download: Download, owner: DownloadOwner | undefined, event: Protocol.Browser.DownloadProgressEvent): Promise<void> {
    const { logger, unownedDir } = this.#options;
    const staged = this.#stagedPath(download, event.filePath);
    if (owner) {
      // Counted before the file is placed, right after the check: two downloads ending at once cannot both fit.
      owner.tally.keptFiles += 1;
      owner.tally.keptBytes += event.receivedBytes;
    }
    try {
      const path = owner ? await placeDownload(staged, owner.root, owner.segments, download.name) : await placeDownload(staged, unownedDir, [], download.name);
      if (owner) {
        this.#tell(download, owner, { kind: 'saved', name: download.name, path, bytes: event.receivedBytes });
      } else {
        logger.info(`a download from a tab no session owns was saved to ${path} (${event.receivedBytes} bytes)`);
      }
    } catch (error) {
      if (owner) {
        owner.tally.keptFiles -= 1;
        owner.tally.keptBytes -= event.receivedBytes;
      }
      await this.#removeStaged(download, event.filePath);
      this.#tell(download, owner, { kind: 'failed', name: download.name, reason: TabmuxError.from(error).message });
    }
  }

  /** Runs `step` after the download's earlier steps, once its owner is known; a failing step is logged. */
  #then(download: Download, step: (owner: DownloadOwner | undefined) => Promise<void>): void {
    download.chain = download.chain
      .then(async () => step(await download.owner))
      .catch((error: unknown) => this.#options.logger.warn(`download ${download.guid}: ${TabmuxError.from(error).message}`));
  }

  /** Cancels a download in whichever context it runs (the event does not say which). */
  async #cancel(download: Download): Promise<void> {
    for (const browserContextId of [undefined, ...this.#contexts]) {
      try {
        await this.#connection.send('Browser.cancelDownload', { guid: download.guid, ...(browserContextId === undefined ? {} : { browserContextId }) });
        return;
      } catch {
        // Not in this context (or finished already).
      }
    }
  }

  /** Where the launched browser wrote a download: its reported path if that is in the staging folder, else its guid. */
  #stagedPath(download: Download, reported: string | undefined): string {
    const { stagingDir } = this.#options;
    if (reported !== undefined) {
      const rel = relative(stagingDir, reported);
      if (rel !== '' && !rel.startsWith('..') && !rel.includes('/') && !rel.includes('\\')) {
        return reported;
      }
    }
    return join(stagingDir, download.guid);
  }

  async #removeStaged(download: Download, reported: string | undefined): Promise<void> {
    if (this.#options.browser === 'launched') {
      await fs.rm(this.#stagedPath(download, reported), { force: true });
    }
  }

  #tell(download: Download, owner: DownloadOwner | undefined, outcome: DownloadOutcome): void {
    if (download.told) {
      return;
    }
    download.told = true;
    if (owner) {
      owner.tell(outcome);
    } else {
      this.#options.logger.info(`a download from a tab no session owns: ${outcome.kind}`);
    }
  }
}
