import { TabmuxError } from '../../../shared/errors.js';
import type { PictureSize, TabPicture } from '../../../shared/model.js';
import type { SupervisorEvent } from '../../../shared/supervisor.js';
import type { PictureInput } from '../../../shared/pictureInput.js';
import type { PictureWatch } from '../pictures/PictureWatches.js';
import type { DaemonClient } from '../transport/DaemonClient.js';

/** One UI connection (a dashboard page's WebSocket, the tray window): frames for it go to it alone. */
export interface Viewer {
  readonly id: string;
  push(event: SupervisorEvent): void;
}

/** What the relay asks of a profile's daemon, over the supervisor's connection to it. */
export interface PictureDaemon {
  /** `tabmux/pictures.watch`: resolves with the tabs it captures. */
  watch(tabs: PictureWatch[]): Promise<string[]>;
  /** `tabmux/pictures.input`. */
  input(tabId: string, input: PictureInput): Promise<void>;
}

/** The picture methods over the supervisor's connection to a daemon, while it is open. */
export function pictureDaemon(watch: { closed: boolean; client: Pick<DaemonClient, 'call'> } | null | undefined): PictureDaemon | undefined {
  if (!watch || watch.closed) {
    return undefined;
  }
  const { client } = watch;
  return {
    watch: async (tabs) => (await client.call('tabmux/pictures.watch', { tabs })).watching,
    input: async (tabId, input) => {
      await client.call('tabmux/pictures.input', { tabId, input });
    },
  };
}

/** The daemon of a profile, while the supervisor is connected to it. */
export type DaemonOf = (profile: string) => PictureDaemon | undefined;

interface ViewerWatches {
  viewer: Viewer;
  byProfile: Map<string, Map<string, PictureSize>>;
}

/**
 * Live pictures between the daemons and the UIs. The supervisor holds one connection per daemon, so it asks each
 * daemon for the union of what its viewers watch, and hands every frame only to the viewers that watch that tab:
 * a frame never reaches a connection that did not ask for it. A viewer that goes away is dropped, and its tabs stop
 * being captured unless someone else watches them.
 */
export class PictureRelay {
  readonly #viewers = new Map<string, ViewerWatches>();

  constructor(private readonly daemonOf: DaemonOf) {}

  async watch(viewer: Viewer, profile: string, watches: readonly PictureWatch[]): Promise<string[]> {
    const entry = this.#viewers.get(viewer.id) ?? { viewer, byProfile: new Map() };
    this.#viewers.set(viewer.id, entry);
    const mine = new Map<string, PictureSize>();
    for (const { tabId, size } of watches) {
      mine.set(tabId, mine.get(tabId) === 'live' ? 'live' : size);
    }
    if (mine.size === 0) {
      entry.byProfile.delete(profile);
    } else {
      entry.byProfile.set(profile, mine);
    }
    const captured = await this.resync(profile);
    return [...mine.keys()].filter((tabId) => captured.includes(tabId));
  }

  /** Takeover input, taken only from a viewer that has the tab in its live view; the daemon checks the pause. */
  async input(viewerId: string, profile: string, tabId: string, input: PictureInput): Promise<void> {
    if (this.#viewers.get(viewerId)?.byProfile.get(profile)?.get(tabId) !== 'live') {
      throw new TabmuxError('invalid_request', `tab ${tabId} is not open in this window's live view; open its live view, then take over`);
    }
    const daemon = this.daemonOf(profile);
    if (!daemon) {
      throw new TabmuxError('daemon_not_running', `profile ${profile} is not running; start it first`);
    }
    await daemon.input(tabId, input);
  }

  /** Frames of a tab go to the viewers that watch it. */
  deliver(profile: string, picture: TabPicture): void {
    for (const { viewer, byProfile } of this.#viewers.values()) {
      if (byProfile.get(profile)?.has(picture.tabId)) {
        viewer.push({ type: 'picture', profile, picture });
      }
    }
  }

  /** A viewer went away (its socket closed, its window was destroyed). */
  async dropViewer(viewerId: string): Promise<void> {
    const entry = this.#viewers.get(viewerId);
    this.#viewers.delete(viewerId);
    for (const profile of entry?.byProfile.keys() ?? []) {
      await this.resync(profile).catch(() => undefined);
    }
  }

  /**
   * Sends the daemon what all viewers watch on it: after a change, and when its daemon (re)connected (a new daemon
   * knows nothing of what its predecessor captured).
   */
  async resync(profile: string): Promise<string[]> {
    const union = new Map<string, PictureSize>();
    for (const { byProfile } of this.#viewers.values()) {
      for (const [tabId, size] of byProfile.get(profile) ?? []) {
        union.set(tabId, union.get(tabId) === 'live' ? 'live' : size);
      }
    }
    const daemon = this.daemonOf(profile);
    if (!daemon) {
      return [];
    }
    const tabs: PictureWatch[] = [...union].map(([tabId, size]) => ({ tabId, size }));
    return daemon.watch(tabs);
  }
}
