import type { PictureSize, TabPicture } from '../../shared/model.js';
import type { PictureInputRequest } from '../../shared/pictureInput.js';
import type { Host } from '../host/Host.js';

type Listener = (picture: TabPicture) => void;

interface Watcher {
  size: PictureSize;
  listener: Listener;
}

/** How long watch changes are gathered before the supervisor is told (a list renders many pictures at once). */
const SYNC_DELAY_MS = 30;

/**
 * Live pictures for this window, kept apart from the store: frames arrive several times a second and only the
 * pictures of their own tab need them. Components watch a tab while they are on screen; the feed tells the
 * supervisor which tabs of each profile this window shows (the largest size each one is shown at), and nothing at
 * all while the window is hidden, so no frame is made for a window nobody looks at.
 */
export class PictureFeed {
  readonly #host: Host;
  readonly #watchers = new Map<string, Map<string, Set<Watcher>>>();
  readonly #latest = new Map<string, TabPicture>();
  readonly #dirty = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #active = true;
  readonly #stop: () => void;

  constructor(host: Host) {
    this.#host = host;
    const stopEvents = host.subscribe((event) => {
      if (event.type === 'picture') {
        this.#receive(event.profile, event.picture);
      }
    });
    const stopConnection = host.watchConnection((connection) => {
      if (connection.state === 'open') {
        // A new connection is a new viewer to the supervisor: it watches nothing until told again.
        this.#syncAll();
      }
    });
    this.#stop = () => {
      stopEvents();
      stopConnection();
    };
  }

  /** Shows a tab's frames to `listener` until the returned function is called; the last frame comes at once. */
  watch(profile: string, tabId: string, size: PictureSize, listener: Listener): () => void {
    const tabs = this.#watchers.get(profile) ?? new Map<string, Set<Watcher>>();
    this.#watchers.set(profile, tabs);
    const watchers = tabs.get(tabId) ?? new Set<Watcher>();
    tabs.set(tabId, watchers);
    const watcher: Watcher = { size, listener };
    watchers.add(watcher);
    this.#schedule(profile);
    const last = this.#latest.get(key(profile, tabId));
    if (last) {
      listener(last);
    }
    return () => {
      watchers.delete(watcher);
      if (watchers.size === 0) {
        tabs.delete(tabId);
        this.#latest.delete(key(profile, tabId));
      }
      this.#schedule(profile);
    };
  }

  /** The window was hidden or shown again: a hidden window watches nothing. */
  setActive(active: boolean): void {
    if (active !== this.#active) {
      this.#active = active;
      this.#syncAll();
    }
  }

  /** Takeover input into a tab this window shows live. */
  async input(profile: string, tabId: string, input: PictureInputRequest): Promise<void> {
    await this.#host.call('supervisor/pictures.input', { profile, tabId, input });
  }

  dispose(): void {
    this.#stop();
    if (this.#timer) {
      clearTimeout(this.#timer);
    }
  }

  #receive(profile: string, picture: TabPicture): void {
    const watchers = this.#watchers.get(profile)?.get(picture.tabId);
    if (!watchers) {
      return;
    }
    this.#latest.set(key(profile, picture.tabId), picture);
    for (const watcher of watchers) {
      watcher.listener(picture);
    }
  }

  #syncAll(): void {
    for (const profile of this.#watchers.keys()) {
      this.#schedule(profile);
    }
  }

  #schedule(profile: string): void {
    this.#dirty.add(profile);
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      const profiles = [...this.#dirty];
      this.#dirty.clear();
      for (const name of profiles) {
        void this.#sync(name);
      }
    }, SYNC_DELAY_MS);
  }

  async #sync(profile: string): Promise<void> {
    const tabs = this.#active ? [...(this.#watchers.get(profile) ?? new Map<string, Set<Watcher>>())].map(([tabId, watchers]) => ({ tabId, size: largest(watchers) })) : [];
    try {
      await this.#host.call('supervisor/pictures.watch', { profile, tabs });
    } catch {
      // The profile is not running or the connection dropped; a reconnect or the next change asks again.
    }
  }
}

function key(profile: string, tabId: string): string {
  return `${profile}\n${tabId}`;
}

function largest(watchers: ReadonlySet<Watcher>): PictureSize {
  return [...watchers].some((watcher) => watcher.size === 'live') ? 'live' : 'thumb';
}
