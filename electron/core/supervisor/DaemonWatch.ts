import { SYSTEM_LANE_ID, type DaemonEvent, type DaemonStatus, type QueueEntry, type TabInfo } from '../../../shared/model.js';
import { TabmuxError } from '../../../shared/errors.js';
import { withDeadline } from '../../../shared/withDeadline.js';
import { pidFilePath, socketPath, type TabmuxPaths } from '../platform/paths.js';
import { runningHolder } from '../process/ClaimFile.js';
import { DaemonClient, HELLO_TIMEOUT_MS } from '../transport/DaemonClient.js';
import { foldDaemonEvent, type DaemonState } from './foldDaemonEvent.js';

export interface DaemonWatchOptions {
  paths: TabmuxPaths;
  profile: string;
  /** Sessions and the queue change which tabs exist; the tab list is fetched again this long after the last change. */
  tabsDebounceMs?: number;
  onEvent: (event: DaemonEvent) => void;
  /** The whole status was fetched again (see `#refreshStatus`). */
  onStatus?: () => void;
  onClose: () => void;
  /** How long the daemon may take to answer as the watch opens; see ANSWER_WITHIN_MS. */
  answerWithinMs?: number;
}

/** A daemon that took the watch's connection but left it unanswered: what its profile says. */
export interface UnansweredDaemon {
  unanswered: string;
}

/** How long a watched daemon may leave a look unanswered: as long as a new connection gives its hello. */
const ANSWER_WITHIN_MS = HELLO_TIMEOUT_MS;

/**
 * One subscribed connection to a running daemon. It keeps a copy of the daemon's status and tab list current by
 * folding pushed events, and fetches the tab list again after session or queue changes, because the daemon only
 * pushes tabs when someone asks for them.
 */
export class DaemonWatch {
  readonly client: DaemonClient;
  #state: DaemonState;
  #tabsTimer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  #refreshing = false;
  #refreshAgain = false;
  #lastQueueKey = '';
  #statusRefresh: Promise<void> | null = null;
  #statusAgain = false;
  #answering: Promise<boolean> | null = null;
  #unanswered = false;
  /** Requests out on the connection (see `request`), each to fail should the daemon stop answering. */
  readonly #waiting = new Set<(error: TabmuxError) => void>();
  readonly #profile: string;
  readonly #tabsDebounceMs: number;
  readonly #onEvent: (event: DaemonEvent) => void;
  readonly #onStatus: () => void;

  private constructor(client: DaemonClient, status: DaemonStatus, tabs: TabInfo[], options: DaemonWatchOptions) {
    this.client = client;
    this.#profile = options.profile;
    this.#state = { status, tabs };
    this.#tabsDebounceMs = options.tabsDebounceMs ?? 250;
    this.#onEvent = options.onEvent;
    this.#onStatus = options.onStatus ?? (() => undefined);
    this.#lastQueueKey = queueKey(status.queue);
    client.onEvent((event) => this.#handle(event));
    client.onClose(() => {
      this.#closed = true;
      this.#clearTimer();
      options.onClose();
    });
  }

  /**
   * Connects and subscribes; undefined when no daemon runs on the profile's socket. A daemon that takes the connection
   * but does not answer within the deadline (its process stopped or stuck, before or after its hello) is reported as
   * such, so its profile can say so instead of looking stopped, and nobody waits on it longer than that.
   */
  static async open(options: DaemonWatchOptions): Promise<DaemonWatch | UnansweredDaemon | undefined> {
    const withinMs = options.answerWithinMs ?? ANSWER_WITHIN_MS;
    let client: DaemonClient;
    try {
      // The watch asks whether its daemon answers on its own (see answerChanged), and tells the profile rather than
      // giving the connection up.
      client = await DaemonClient.connect(socketPath(options.paths, options.profile), 'tabmux-supervisor', { looksOnly: true, helloTimeoutMs: withinMs, watchAnswers: false });
    } catch (error) {
      if (TabmuxError.from(error).code !== 'daemon_unresponsive') {
        return undefined;
      }
      const holder = await runningHolder(pidFilePath(options.paths, options.profile)).catch(() => undefined);
      return { unanswered: unansweredError(holder?.pid) };
    }
    const looked = withDeadline(
      (async () => {
        const status = await client.call('tabmux/subscribe');
        const { tabs } = await client.call('tabmux/tabs.list').catch(() => ({ tabs: [] }));
        return { status, tabs };
      })(),
      withinMs,
      undefined,
    );
    try {
      const first = await looked;
      if (first === undefined) {
        client.close();
        return { unanswered: unansweredError(client.hello.pid) };
      }
      return new DaemonWatch(client, first.status, first.tabs, options);
    } catch {
      client.close();
      return undefined;
    }
  }

  get status(): DaemonStatus {
    return this.#state.status;
  }

  get tabs(): TabInfo[] {
    return this.#state.tabs;
  }

  get pid(): number {
    return this.client.hello.pid;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Fetches the tab list again shortly, after a call that changes tabs without any session or queue event. */
  refreshTabsSoon(): void {
    this.#scheduleTabs();
  }

  /** Fetches the status again, after something that changed the browser's connection (Connect). */
  /**
   * Whether the daemon answers a request within `ms`. A stopped or stuck daemon keeps this connection open and pushes
   * nothing, which looks like a quiet one; only a question it must answer tells them apart. Any reply will do, and a
   * closed connection is told of by onClose, not here.
   */
  #answersWithin(ms: number): Promise<boolean> {
    this.#answering ??= new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      timer.unref();
      void this.client.request('tabmux/policies.list').then(
        () => undefined,
        () => undefined,
      ).finally(() => {
        clearTimeout(timer);
        resolve(true);
      });
    }).finally(() => {
      this.#answering = null;
    });
    return this.#answering;
  }

  /** Looks whether the daemon answers (see #answersWithin); true when that changed since the last look. */
  async answerChanged(withinMs = ANSWER_WITHIN_MS): Promise<boolean> {
    const answered = await this.#answersWithin(withinMs);
    if (answered !== this.#unanswered) {
      return false;
    }
    this.#unanswered = !answered;
    if (this.#unanswered) {
      const error = new TabmuxError('daemon_unresponsive', `profile ${this.#profile}: ${this.unansweredError}`);
      for (const giveUp of this.#waiting) {
        giveUp(error);
      }
      this.#waiting.clear();
    }
    return true;
  }

  /**
   * A request on the watch's connection (a person's action in a UI). One still out when the daemon is found not to
   * answer fails then, with the reason, rather than waiting as long as the daemon stays stopped.
   */
  request(method: string, params: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const giveUp = (error: TabmuxError): void => reject(error);
      this.#waiting.add(giveUp);
      this.client
        .request(method, params)
        .then(resolve, reject)
        .finally(() => this.#waiting.delete(giveUp));
    });
  }

  /** The daemon left the last look unanswered: its process is stopped or stuck. */
  get unanswered(): boolean {
    return this.#unanswered;
  }

  /** What the profile says while its daemon does not answer. */
  get unansweredError(): string {
    return unansweredError(this.status.pid);
  }

  refreshStatusSoon(): void {
    void this.#refreshStatus();
  }

  close(): void {
    this.#clearTimer();
    this.client.close();
  }

  #handle(event: DaemonEvent): void {
    this.#state = foldDaemonEvent(this.#state, event);
    this.#onEvent(event);
    if (event.type === 'tabs') {
      this.#syncUpstreamSelection(event.tabs);
    }
    if (event.type === 'daemon' && this.#state.status.browser.kind === 'external') {
      void this.#refreshStatus();
    }
    if (event.type === 'session.updated' || event.type === 'session.closed') {
      this.#scheduleTabs();
    } else if (event.type === 'queue') {
      // Our own tab listing passes through the queue too; reacting to it would poll forever.
      const key = queueKey(event.queue);
      if (key !== this.#lastQueueKey) {
        this.#lastQueueKey = key;
        this.#scheduleTabs();
      }
    }
  }

  /**
   * Upstream's selected page changes as a side effect of tool calls, and the daemon reports it in each tab listing
   * rather than with a `workers` event; carry it over to the workers so the debug view stays current.
   */
  #syncUpstreamSelection(tabs: readonly TabInfo[]): void {
    const { status } = this.#state;
    let changed = false;
    const workers = status.workers.map((worker) => {
      const selected = tabs.find((tab) => tab.worker === worker.index && tab.upstreamSelected);
      if (!selected || selected.pageId === worker.selectedPageId) {
        return worker;
      }
      changed = true;
      return { ...worker, selectedPageId: selected.pageId };
    });
    if (changed) {
      this.#handle({ type: 'workers', profile: status.profile, workers });
    }
  }

  /**
   * An external browser's connection (state, attempts, next retry) changes with the daemon's state, but the
   * `daemon` event carries only that state; fetch the status so a UI shows why and when it retries.
   */
  async #refreshStatus(): Promise<void> {
    if (this.#statusRefresh) {
      this.#statusAgain = true;
      return;
    }
    this.#statusRefresh = this.client.call('tabmux/status').then(
      (status) => {
        if (!this.#closed) {
          this.#state = { ...this.#state, status };
          this.#onStatus();
        }
      },
      // The daemon is stopping; its close is reported on its own.
      () => undefined,
    );
    await this.#statusRefresh;
    this.#statusRefresh = null;
    if (this.#statusAgain) {
      this.#statusAgain = false;
      await this.#refreshStatus();
    }
  }

  #scheduleTabs(): void {
    if (this.#closed) {
      return;
    }
    this.#clearTimer();
    this.#tabsTimer = setTimeout(() => {
      this.#tabsTimer = null;
      void this.#refreshTabs();
    }, this.#tabsDebounceMs);
  }

  /** One listing at a time: each one is a call in the router's queue, and a burst of events must not pile them up. */
  async #refreshTabs(): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return;
    }
    this.#refreshing = true;
    let tabs: TabInfo[] | undefined;
    try {
      ({ tabs } = await this.client.call('tabmux/tabs.list'));
    } catch {
      // The daemon is stopping or busy restarting a worker; the next change schedules another try.
    } finally {
      this.#refreshing = false;
    }
    if (this.#refreshAgain) {
      this.#refreshAgain = false;
      this.#scheduleTabs();
    }
    if (!tabs) {
      return;
    }
    // The daemon pushes a `tabs` event for every listing, usually before this reply; relay only what it did not.
    if (JSON.stringify(tabs) !== JSON.stringify(this.#state.tabs)) {
      this.#handle({ type: 'tabs', profile: this.#state.status.profile, tabs });
    }
  }

  #clearTimer(): void {
    if (this.#tabsTimer) {
      clearTimeout(this.#tabsTimer);
      this.#tabsTimer = null;
    }
  }
}

function queueKey(queue: readonly QueueEntry[]): string {
  return queue
    .filter((entry) => entry.sessionId !== SYSTEM_LANE_ID)
    .map((entry) => `${entry.callId}:${entry.state}`)
    .join(',');
}

/** What a profile says while its daemon does not answer. */
function unansweredError(pid: number | undefined): string {
  return `the daemon${pid === undefined ? '' : ` (pid ${pid})`} does not answer: its process is stopped or stuck; Stop ends it`;
}
