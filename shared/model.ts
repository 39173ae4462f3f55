import type { ActivityEntry, ActivityOutcome } from './activity.js';
import type { PolicyRule } from './policy.js';

/**
 * The state a daemon exposes: what `tabmux daemon status --json` prints, what the UI renders and what events carry.
 * Times are epoch milliseconds. Page ids are in the terms of the session's upstream worker.
 */

/**
 * `degraded`: Chrome died and is being relaunched (calls fail fast meanwhile); `crashed`: it keeps dying, relaunches
 * continue at the longest backoff and `lastError` says why.
 */
export type DaemonState = 'starting' | 'ready' | 'degraded' | 'crashed' | 'stopping';

export type ProfileState = 'stopped' | 'starting' | 'ready' | 'crashed' | 'restarting' | 'stopping';

/** How a session came to own a page: opened for it by the router, attached by a human, or opened by its own action (popup). */
export type PageOrigin = 'created' | 'attached' | 'opened';

export interface SessionPage {
  pageId: number;
  url: string;
  title: string;
  origin: PageOrigin;
  current: boolean;
}

export type SessionActivity = 'idle' | 'busy' | 'paused';

export interface SessionInfo {
  id: string;
  label: string | null;
  createdAt: number;
  lastUsedAt: number;
  /** True while a client connection is bound to the session. */
  owned: boolean;
  paused: boolean;
  activity: SessionActivity;
  worker: number;
  currentPageId: number | null;
  pages: SessionPage[];
  /** Snapshot epoch: uid tokens carry it; only tokens of the current epoch are accepted. */
  epoch: number;
  queued: number;
  running: number;
  /** The session's latest answered call; null before its first, absent from daemons that predate this field. */
  lastCall?: SessionLastCall | null | undefined;
  /** The oldest request of the session waiting for a person (a question); null or absent when none waits. */
  waitingForHuman?: SessionWaiting | null | undefined;
}

/** What waits for a person: an agent's question (`ask_human`), or a call a policy holds for approval. */
export type HumanRequestKind = 'question' | 'confirm';

/** Who answered a request: a person at the CLI or at the dashboard (or tray). */
export type HumanActor = 'cli' | 'dashboard';

/** A session held by a request for a person, as its SessionInfo shows it. */
export interface SessionWaiting {
  requestId: string;
  kind: HumanRequestKind;
  /** When the request began (epoch ms). */
  since: number;
}

/**
 * Something an agent waits on a person for (`tabmux requests`, the dashboard's "Needs you"): its id (`req-<8 hex>`)
 * answers it. The question and choices are the agent's own words; `url` is the session's current page as the router
 * knows it, never text a page wrote.
 */
export interface HumanRequest {
  id: string;
  kind: HumanRequestKind;
  sessionId: string;
  label: string | null;
  tool: string;
  url: string | null;
  /** The question; for a confirmation, what the call would do, in words. */
  question: string;
  choices: string[];
  /** A confirmation's call arguments, redacted as the activity log redacts them. */
  arguments?: Record<string, unknown> | undefined;
  /** The policy rule that holds a confirmation. */
  policy?: string | undefined;
  /** Chrome's id of the session's tab, for a live picture of it (`tabmux/pictures.watch`); absent when it has none. */
  tabId?: string | undefined;
  createdAt: number;
  /** When it fails unanswered (epoch ms). */
  timeoutAt: number;
}

/** What a session did last, at a glance: the tool, what became of it (as the activity log says) and when. */
export interface SessionLastCall {
  tool: string;
  outcome: ActivityOutcome;
  /** When the call reached the router (epoch ms). */
  at: number;
  /** When its answer (or error) went back (epoch ms). */
  endedAt: number;
}

/** Queue entries with this session id are the router's own work (listing tabs, closing a session's pages). */
export const SYSTEM_LANE_ID = 'tabmux';

export interface QueueEntry {
  callId: number;
  sessionId: string;
  tool: string;
  worker: number;
  state: 'queued' | 'running';
  enqueuedAt: number;
  startedAt: number | null;
}

export type WorkerState = 'starting' | 'ready' | 'restarting' | 'stopped' | 'failed';

export interface WorkerInfo {
  index: number;
  pid: number | null;
  state: WorkerState;
  /** Upstream's own selected page: diagnostic only, routing never depends on it. */
  selectedPageId: number | null;
  inFlight: number;
  sessions: number;
  lastError: string | null;
  /** The sessions it serves. */
  sessionIds?: string[] | undefined;
  /** The call it runs now, if any (a call given up on still shows while upstream ends it). */
  busy?: { callId: number; sessionId: string; tool: string; since: number } | null | undefined;
  /** Its process's resident memory in MiB, read every few seconds while the memory limit is on; absent otherwise. */
  residentMb?: number | null | undefined;
}

/**
 * The browser a profile drives, by kind. `launched`: a Chrome tabmux started on the profile's own user-data-dir
 * (pid and port are null while it is being relaunched). `external`: a browser someone else runs, which tabmux only
 * connects to.
 */
export type BrowserInfo = LaunchedBrowserInfo | ExternalBrowserInfo;

export interface LaunchedBrowserInfo {
  kind: 'launched';
  pid: number | null;
  port: number | null;
  browserUrl: string | null;
  userDataDir: string;
  headless: boolean;
  /** The Chrome binary, once it was found (at start). */
  executable: string | null;
}

/**
 * An external browser's connection: `pending` until something first needs it, `connecting`, `connected`, or
 * `disconnected` (unreachable or gone; retried with backoff, and at once when a call needs it).
 */
export type ExternalBrowserState = 'pending' | 'connecting' | 'connected' | 'disconnected';

export interface ExternalBrowserInfo {
  kind: 'external';
  state: ExternalBrowserState;
  /** Where tabmux reaches the browser, with any credentials in it redacted. */
  endpoint: string;
  lastError: string | null;
  /** Failed attempts in a row since the last connection. */
  attempts: number;
  /** When the next background attempt runs (epoch ms), while disconnected. */
  nextRetryAt: number | null;
}

/**
 * The launched Chrome's fields in the shape scripts have read since the first release (`chrome.port`, `chrome.pid`).
 * For an external browser every field is null: tabmux neither started it nor knows its files.
 */
export interface ChromeInfo {
  pid: number | null;
  port: number | null;
  browserUrl: string | null;
  userDataDir: string | null;
  headless: boolean | null;
  executable: string | null;
}

export interface TabInfo {
  /** The tab's one id in `tabmux pages` and the dashboard (the first worker's page id): what attach takes. */
  pageId: number;
  worker: number;
  /** The id the owning session knows the tab by on its own worker (its page list, release --page); null when unowned. */
  ownerPageId: number | null;
  /** The upstream worker that serves the owning session; null when unowned. */
  ownerWorker?: number | null | undefined;
  url: string;
  title: string;
  owner: string | null;
  origin: PageOrigin | null;
  upstreamSelected: boolean;
  /** The browser window holding the tab; null when the browser could not tell (it is reconnecting, say). */
  windowId: number | null;
  /** Chrome's id of the tab, when the daemon knows it: what live pictures and takeover input address. */
  tabId?: string | undefined;
  /** The request of the owning session that waits for a person (tabmux requests); absent when none waits. */
  waitingForHuman?: string | undefined;
  /**
   * How the tab's page process ended, as the browser reported it (`crashed`, `oom`, `killed`...), while the tab shows
   * Chrome's crash page; absent while it runs.
   */
  crashed?: string | undefined;
}

/** Whether the activity log's writes reach the disk; shown to the person (status, dashboard, daemon.log). */
export interface ActivityLogHealth {
  /** What fails now (a full disk, a stalled one); null while writes succeed. */
  error: string | null;
  /** Since when writes have failed (epoch ms); null while they succeed. */
  failingSince: number | null;
  /** Entries kept in memory until the disk takes them. */
  pending: number;
  /** Entries given up on since the daemon started: more were waiting than memory keeps. */
  dropped: number;
}

/** Where agents' downloads go, as the daemon applies the profile's settings (see docs/security.md, Downloads). */
export interface DownloadsInfo {
  /**
   * `session`: kept in each session's own folder; `off`: refused; `cancelled`: a browser tabmux did not launch, where
   * sessions' downloads are cancelled and the user's own are left to the browser.
   */
  mode: 'session' | 'off' | 'cancelled';
  /** The largest file one download may write, in bytes. */
  maxBytes: number;
  /** The most bytes, and files, one session's downloads may keep (absent from a daemon of an earlier version). */
  sessionMaxBytes?: number | undefined;
  sessionMaxFiles?: number | undefined;
  /** Where a session's downloads are kept: `<files>/<session id>/downloads`. */
  sessionFolder: string;
  /** Where downloads from tabs nobody owns are kept; null where tabmux leaves them to the browser. */
  unownedFolder: string | null;
}

/**
 * Who started a daemon: `demand`, a command that needed one (`mcp serve`, `mcp call --new-session`, `session create`,
 * ...); `daemon-start`, `tabmux daemon start` or `restart`; `app`, the tray or `tabmux dashboard`; `daemon-run`, a
 * person running `tabmux daemon run` in the foreground. Only a daemon started on demand exits by itself.
 */
export type DaemonStartedBy = 'demand' | 'daemon-start' | 'app' | 'daemon-run';

/** How long a daemon runs: until it is stopped, or, started on demand, until it has been idle for a while. */
export interface DaemonLifetime {
  startedBy: DaemonStartedBy;
  /** How long it runs with no session and no client before it exits with its Chrome; null: until it is stopped. */
  idleExitMs: number | null;
  /** Since when it has had no session and no client (ms since the epoch); null while it has one, or is kept. */
  idleSince: number | null;
}

export interface DaemonStatus {
  protocolVersion: number;
  version: string;
  profile: string;
  pid: number;
  socketPath: string;
  startedAt: number;
  state: DaemonState;
  lastError: string | null;
  /** Who started it and whether it exits when idle; absent from daemons that predate this field. */
  lifetime?: DaemonLifetime | undefined;
  browser: BrowserInfo;
  /** The same facts in the shape scripts read (`chrome.port`); kept as long as the JSON output is a contract. */
  chrome: ChromeInfo;
  /** The first worker's process; kept as a top-level field because scripts read `upstream.pid`. */
  upstream: { pid: number | null };
  workers: WorkerInfo[];
  sessions: SessionInfo[];
  queue: QueueEntry[];
  settings: { sessionTtlMs: number; reapIntervalMs: number; callTimeoutMs: number; workers: number; workerIdleMs: number; toolTimeoutsMs: Record<string, number> };
  /** Where agents' downloads go; absent from daemons that predate this field. */
  downloads?: DownloadsInfo | undefined;
  /** The activity log's writes; absent when the profile does not record (or the daemon predates this field). */
  activityLog?: ActivityLogHealth | undefined;
  /** When each step of this daemon's start ended; absent from daemons that predate this field. */
  startup?: DaemonStartup | undefined;
  /**
   * Since when the browser itself has not answered the daemon (epoch ms): no call of the profile is served meanwhile.
   * Null while it answers; absent from daemons that predate this field.
   */
  browserSilentSince?: number | null | undefined;
  /** The daemon process's memory now; absent from daemons that predate this field. */
  memory?: DaemonMemory | undefined;
}

/**
 * A daemon's memory as its own process sees it, in bytes: resident in all; what its JavaScript objects use; what V8
 * holds for new objects (the young generation, which grows under bursts of calls and is given back only by a
 * collection that V8 runs to reduce memory); and memory outside the JavaScript heap that objects hold (buffers).
 */
export interface DaemonMemory {
  rssBytes: number;
  heapUsedBytes: number;
  youngGenerationBytes: number;
  externalBytes: number;
}

/**
 * Where a daemon's start spent its time, as wall-clock times (ms since the epoch): its process began, it claimed the
 * profile, its browser was up (launched, adopted or connected), the sessions of a daemon that died were restored, and
 * its socket took clients. A step not reached yet is null.
 */
export interface DaemonStartup {
  processAt: number;
  claimedAt: number;
  browserAt: number | null;
  restoredAt: number | null;
  readyAt: number | null;
  /** Whether the browser was a dead daemon's Chrome, adopted. */
  adopted: boolean;
}

export type SessionCloseReason = 'closed' | 'expired' | 'daemon_stopped';

/** Pushed to subscribers; the UI folds them into its store with a pure `applyEvent`. */
export type DaemonEvent =
  /** `restarting`: the daemon stops for `daemon restart`, so another takes its place at once. */
  | {
      type: 'daemon';
      profile: string;
      state: DaemonState;
      lastError: string | null;
      activityLog?: ActivityLogHealth | undefined;
      restarting?: boolean | undefined;
      /** See `DaemonStatus.browserSilentSince`. */
      browserSilentSince?: number | null | undefined;
    }
  | { type: 'session.updated'; profile: string; session: SessionInfo }
  | { type: 'session.closed'; profile: string; sessionId: string; reason: SessionCloseReason }
  | { type: 'queue'; profile: string; queue: QueueEntry[] }
  | { type: 'workers'; profile: string; workers: WorkerInfo[] }
  | { type: 'tabs'; profile: string; tabs: TabInfo[] }
  /** The profile's policy rules as the daemon applies them now, whoever changed them (CLI, dashboard, config). */
  | { type: 'policies'; profile: string; policies: PolicyRule[] }
  /** One agent call, once answered, as the activity log keeps it. */
  | { type: 'activity'; profile: string; entry: ActivityEntry }
  /** A frame of a watched tab; sent only to the connection that watches it (see `tabmux/pictures.watch`). */
  | { type: 'picture'; profile: string; picture: TabPicture };

/** How big and how often a watched tab's picture is: a small one for lists, a large one for the live view. */
export type PictureSize = 'thumb' | 'live';

/**
 * Where a frame sits on the page, as the browser reports it with each screencast frame: the frame shows the
 * viewport of `deviceWidth` x `deviceHeight` CSS pixels, scaled to the image's own size; `offsetTop` is the height
 * of browser UI drawn above the page inside it (mobile emulation), `pageScaleFactor` the pinch zoom.
 */
export interface PictureMetadata {
  deviceWidth: number;
  deviceHeight: number;
  offsetTop: number;
  pageScaleFactor: number;
}

/** One frame of a tab: a JPEG image (base64), its pixel size, and when the browser painted it (epoch ms). */
export interface TabPicture {
  tabId: string;
  data: string;
  width: number;
  height: number;
  timestamp: number;
  metadata: PictureMetadata;
}
