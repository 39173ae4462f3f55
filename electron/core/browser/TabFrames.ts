import type { Protocol } from 'devtools-protocol';
import type { CDPSession } from 'puppeteer-core/internal/api/CDPSession.js';
import type { CdpConnection } from './CdpConnection.js';
import { withDeadline } from '../../../shared/withDeadline.js';

/** How deep out-of-process iframes are followed to the page that holds them. */
const MAX_FRAME_NESTING = 8;

/**
 * Which tab holds a frame, for the tab list (`BrowserTabs`), from the browser's own ids: a page target's id names its
 * main frame, and its iframes are known from its Page events. The pages and their sessions are the tab list's own maps,
 * read as they are at each lookup; only the iframes, and which frame holds each out-of-process one, are kept here.
 */
export class TabFrames {
  readonly #connection: CdpConnection;
  /** Page target id -> tab id. */
  readonly #tabOfPage: ReadonlyMap<string, string>;
  /** Tab id -> the flattened CDP session of its page on this connection. */
  readonly #pageSessions: ReadonlyMap<string, string>;
  /** Frames inside tabs' pages (iframes), frame id -> tab id, from each page's own Page events. */
  readonly #frameTabs = new Map<string, string>();
  /**
   * Out-of-process iframes, frame id -> the id of the frame that holds it, from the browser's target list as a lookup
   * last read it: a page's frame tree leaves out its frames that run in another process.
   */
  #frameParents = new Map<string, string>();
  /** Lookups of frames not known yet (see `tabOf`), asked again whenever a page or frame is reported. */
  readonly #frameWaiters = new Set<() => void>();

  constructor(connection: CdpConnection, tabOfPage: ReadonlyMap<string, string>, pageSessions: ReadonlyMap<string, string>) {
    this.#connection = connection;
    this.#tabOfPage = tabOfPage;
    this.#pageSessions = pageSessions;
  }

  /** Follows the iframes of a tab's page (the Page domain is on for dialogs), so a frame id tells its tab. */
  watch(tabId: string, session: CDPSession): void {
    session.on('Page.frameAttached', (event: Protocol.Page.FrameAttachedEvent) => {
      this.#frameTabs.set(event.frameId, tabId);
      this.found();
    });
    session.on('Page.frameDetached', (event: Protocol.Page.FrameDetachedEvent) => {
      // A frame swapped into another process keeps its id and its tab.
      if (event.reason === 'remove') {
        this.#frameTabs.delete(event.frameId);
      }
    });
  }

  /** A page or a frame was reported: the lookups still waiting look again. */
  found(): void {
    for (const check of [...this.#frameWaiters]) {
      check();
    }
  }

  /** The tab is gone, and its frames with it. */
  forget(tabId: string): void {
    for (const [frameId, holder] of this.#frameTabs) {
      if (holder === tabId) {
        this.#frameTabs.delete(frameId);
      }
    }
  }

  /**
   * The tab whose page holds a frame. Frames that came before the daemon attached are looked up in every page's frame
   * tree, and out-of-process ones in the browser's target list; a frame of a page the browser has not reported yet is
   * waited for, up to `waitMs`. Undefined when no tab holds it.
   */
  tabOf(frameId: string, waitMs: number): Promise<string | undefined> {
    const known = (): string | undefined => this.#known(frameId);
    const now = known();
    if (now !== undefined) {
      return Promise.resolve(now);
    }
    return new Promise((resolve) => {
      const check = (): void => {
        const tabId = known();
        if (tabId !== undefined) {
          done(tabId);
        }
      };
      const done = (tabId: string | undefined): void => {
        clearTimeout(timer);
        this.#frameWaiters.delete(check);
        resolve(tabId);
      };
      const timer = setTimeout(() => done(undefined), waitMs);
      this.#frameWaiters.add(check);
      void this.#searchFrames(waitMs).then(check);
    });
  }

  /**
   * A page was just attached and its Page events turned on (after the command that does, so the answer is as of
   * then): while a lookup waits, its iframes are read from its frame tree too. A page runs before the daemon attaches
   * to it, so an iframe it made at once (one that starts a download as it loads) was attached before its events were
   * followed, and the lookups' own search of the frame trees may have run before this page was known.
   */
  caughtUp(tabId: string, session: CDPSession, withinMs: number): void {
    if (this.#frameWaiters.size > 0) {
      void this.#learnTree(tabId, session, withinMs).then(() => this.found());
    }
  }

  /**
   * The tab of a frame the daemon knows, or of the frame that holds it: an out-of-process iframe (a cross-site one)
   * is held by a frame of its page, or by another such iframe, up to a few levels.
   */
  #known(frameId: string): string | undefined {
    let id = frameId;
    for (let level = 0; level <= MAX_FRAME_NESTING; level++) {
      const tabId = this.#tabOfPage.get(id) ?? this.#frameTabs.get(id);
      const parent = this.#frameParents.get(id);
      if (tabId !== undefined || parent === undefined) {
        return tabId;
      }
      id = parent;
    }
    return undefined;
  }

  /**
   * Learns the iframes of every page from its frame tree, and which frame holds each out-of-process iframe from the
   * browser's target list; a page or a list that does not answer in `withinMs` is skipped.
   */
  async #searchFrames(withinMs: number): Promise<void> {
    const trees = [...this.#pageSessions].flatMap(([tabId, sessionId]) => {
      const session = this.#connection.session(sessionId);
      return session ? [this.#learnTree(tabId, session, withinMs)] : [];
    });
    await Promise.all([...trees, this.#learnParents(withinMs)]);
  }

  /**
   * Which frame holds each out-of-process iframe, from the browser's target list, and which out-of-process iframe
   * holds each frame of its own process inside it, from its frame tree (read on a session of the daemon's own, opened
   * for that and closed after). Only what answers within `withinMs` is learned.
   */
  async #learnParents(withinMs: number): Promise<void> {
    const listed = this.#connection.send('Target.getTargets', { filter: [{ type: 'iframe' }] }).then(
      (answer) => answer.targetInfos.filter((info) => info.type === 'iframe'),
      () => undefined,
    );
    const started = Date.now();
    const infos = await withDeadline(listed, withinMs, undefined);
    if (infos === undefined) {
      return;
    }
    // The list as the browser has it now: iframes that went are forgotten.
    const parents = new Map(infos.flatMap((info) => (info.parentFrameId === undefined ? [] : [[info.targetId, info.parentFrameId] as const])));
    const left = withinMs - (Date.now() - started);
    const inner = await Promise.all(infos.map(async (info) => ({ holder: info.targetId, frames: await this.#innerFrames(info.targetId, left) })));
    for (const { holder, frames } of inner) {
      for (const frameId of frames) {
        parents.set(frameId, holder);
      }
    }
    this.#frameParents = parents;
  }

  /** The frames inside an out-of-process iframe that run in its process (its frame tree below its own frame). */
  async #innerFrames(targetId: string, withinMs: number): Promise<string[]> {
    const read = async (): Promise<string[]> => {
      const { sessionId } = await this.#connection.send('Target.attachToTarget', { targetId, flatten: true });
      try {
        const session = this.#connection.session(sessionId);
        const tree = session ? await withDeadline(session.send('Page.getFrameTree').then((answer) => answer.frameTree), withinMs, undefined) : undefined;
        return tree ? descendantFrames(tree) : [];
      } finally {
        void this.#connection.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
      }
    };
    return withDeadline(read().catch(() => []), withinMs, []);
  }

  async #learnTree(tabId: string, session: CDPSession, withinMs: number): Promise<void> {
    const frameTree = session.send('Page.getFrameTree').then(
      (answer) => answer.frameTree,
      () => undefined,
    );
    const tree = await withDeadline(frameTree, withinMs, undefined);
    for (const frameId of tree ? descendantFrames(tree) : []) {
      this.#frameTabs.set(frameId, tabId);
    }
  }
}

/** The ids of the frames below a frame tree's root, at any depth. */
function descendantFrames(tree: Protocol.Page.FrameTree): string[] {
  const ids: string[] = [];
  const frames = [...(tree.childFrames ?? [])];
  for (let frame = frames.pop(); frame !== undefined; frame = frames.pop()) {
    ids.push(frame.frame.id);
    frames.push(...(frame.childFrames ?? []));
  }
  return ids;
}
