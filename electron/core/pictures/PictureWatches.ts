import type { PictureSize } from '../../../shared/model.js';

/** One connection's wish: these tabs, at these sizes. */
export interface PictureWatch {
  tabId: string;
  size: PictureSize;
}

/**
 * Who watches which tab: the bookkeeping behind live pictures, apart from the browser. Each connection (peer) has
 * its own set, replaced as a whole; the tabs to capture are the union, each at the largest size anyone asked for,
 * and at most `maxTabs` of them (a profile's cap: the tabs asked for first win).
 */
export class PictureWatches {
  readonly #byPeer = new Map<string, Map<string, PictureSize>>();

  constructor(private readonly maxTabs: number) {}

  /** Replaces what a peer watches; an empty list forgets the peer. */
  set(peerId: string, watches: readonly PictureWatch[]): void {
    if (watches.length === 0) {
      this.#byPeer.delete(peerId);
      return;
    }
    const mine = new Map<string, PictureSize>();
    for (const { tabId, size } of watches) {
      mine.set(tabId, larger(mine.get(tabId), size));
    }
    this.#byPeer.set(peerId, mine);
  }

  drop(peerId: string): void {
    this.#byPeer.delete(peerId);
  }

  /** The tabs to capture and at which size. */
  wanted(): Map<string, PictureSize> {
    const wanted = new Map<string, PictureSize>();
    for (const mine of this.#byPeer.values()) {
      for (const [tabId, size] of mine) {
        if (wanted.has(tabId) || wanted.size < this.maxTabs) {
          wanted.set(tabId, larger(wanted.get(tabId), size));
        }
      }
    }
    return wanted;
  }

  /** The peers a frame of this tab goes to. */
  watchers(tabId: string): string[] {
    return [...this.#byPeer].filter(([, mine]) => mine.has(tabId)).map(([peerId]) => peerId);
  }

  /** Whether a peer watches a tab in the live view (what takeover input requires). */
  watchesLive(peerId: string, tabId: string): boolean {
    return this.#byPeer.get(peerId)?.get(tabId) === 'live';
  }

  get empty(): boolean {
    return this.#byPeer.size === 0;
  }
}

function larger(a: PictureSize | undefined, b: PictureSize): PictureSize {
  return a === 'live' || b === 'live' ? 'live' : 'thumb';
}
