import * as z from 'zod/mini';
import './zodMessages.js';
import { activityEntrySchema, activityOutcomeSchema } from './activity.js';
import { policyRuleSchema } from './policy.js';
import type {
  ActivityLogHealth,
  BrowserInfo,
  ChromeInfo,
  DaemonEvent,
  DaemonLifetime,
  DaemonState,
  DaemonStatus,
  DownloadsInfo,
  HumanRequest,
  PageOrigin,
  PictureMetadata,
  ProfileState,
  QueueEntry,
  SessionActivity,
  SessionCloseReason,
  SessionInfo,
  SessionPage,
  TabInfo,
  TabPicture,
  WorkerInfo,
  WorkerState,
} from './model.js';

/**
 * Schemas for the model types that cross a process boundary (daemon results and events on the socket, the
 * supervisor's views over IPC and the WebSocket). Each is typed as the model interface it checks, so the two cannot
 * drift apart: a field added to a type without its schema is a compile error here.
 *
 * Each object schema is built the first time something is checked against it (`z.lazy`): a process builds only the
 * ones it uses, where every schema built at load cost each daemon ~1 KiB of heap and each process that loads this
 * module its time at start (a daemon checks params, never these results).
 */

const daemonState: z.ZodMiniType<DaemonState> = z.enum(['starting', 'ready', 'degraded', 'crashed', 'stopping']);
export const profileState: z.ZodMiniType<ProfileState> = z.enum(['stopped', 'starting', 'ready', 'crashed', 'restarting', 'stopping']);
const pageOrigin: z.ZodMiniType<PageOrigin> = z.enum(['created', 'attached', 'opened']);
const sessionActivity: z.ZodMiniType<SessionActivity> = z.enum(['idle', 'busy', 'paused']);
const workerState: z.ZodMiniType<WorkerState> = z.enum(['starting', 'ready', 'restarting', 'stopped', 'failed']);
const closeReason: z.ZodMiniType<SessionCloseReason> = z.enum(['closed', 'expired', 'daemon_stopped']);

export const sessionPageSchema: z.ZodMiniType<SessionPage> = z.lazy(() => z.object({
  pageId: z.number(),
  url: z.string(),
  title: z.string(),
  origin: pageOrigin,
  current: z.boolean(),
}));

export const sessionInfoSchema: z.ZodMiniType<SessionInfo> = z.lazy(() => z.object({
  id: z.string(),
  label: z.nullable(z.string()),
  createdAt: z.number(),
  lastUsedAt: z.number(),
  owned: z.boolean(),
  paused: z.boolean(),
  activity: sessionActivity,
  worker: z.number(),
  currentPageId: z.nullable(z.number()),
  pages: z.array(sessionPageSchema),
  epoch: z.number(),
  queued: z.number(),
  running: z.number(),
  lastCall: z.optional(z.nullable(z.object({ tool: z.string(), outcome: activityOutcomeSchema, at: z.number(), endedAt: z.number() }))),
  waitingForHuman: z.optional(z.nullable(z.object({ requestId: z.string(), kind: z.enum(['question', 'confirm']), since: z.number() }))),
}));

export const humanRequestSchema: z.ZodMiniType<HumanRequest> = z.lazy(() => z.object({
  id: z.string(),
  kind: z.enum(['question', 'confirm']),
  sessionId: z.string(),
  label: z.nullable(z.string()),
  tool: z.string(),
  url: z.nullable(z.string()),
  question: z.string(),
  choices: z.array(z.string()),
  arguments: z.optional(z.record(z.string(), z.unknown())),
  policy: z.optional(z.string()),
  tabId: z.optional(z.string()),
  createdAt: z.number(),
  timeoutAt: z.number(),
}));

const queueEntrySchema: z.ZodMiniType<QueueEntry> = z.lazy(() => z.object({
  callId: z.number(),
  sessionId: z.string(),
  tool: z.string(),
  worker: z.number(),
  state: z.enum(['queued', 'running']),
  enqueuedAt: z.number(),
  startedAt: z.nullable(z.number()),
}));

const workerInfoSchema: z.ZodMiniType<WorkerInfo> = z.lazy(() => z.object({
  index: z.number(),
  pid: z.nullable(z.number()),
  state: workerState,
  selectedPageId: z.nullable(z.number()),
  inFlight: z.number(),
  sessions: z.number(),
  lastError: z.nullable(z.string()),
  sessionIds: z.optional(z.array(z.string())),
  busy: z.optional(z.nullable(z.object({ callId: z.number(), sessionId: z.string(), tool: z.string(), since: z.number() }))),
  residentMb: z.optional(z.nullable(z.number())),
}));

const chromeInfoSchema: z.ZodMiniType<ChromeInfo> = z.lazy(() => z.object({
  pid: z.nullable(z.number()),
  port: z.nullable(z.number()),
  browserUrl: z.nullable(z.string()),
  userDataDir: z.nullable(z.string()),
  headless: z.nullable(z.boolean()),
  executable: z.nullable(z.string()),
}));

export const browserInfoSchema: z.ZodMiniType<BrowserInfo> = z.lazy(() => z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('launched'),
    pid: z.nullable(z.number()),
    port: z.nullable(z.number()),
    browserUrl: z.nullable(z.string()),
    userDataDir: z.string(),
    headless: z.boolean(),
    executable: z.nullable(z.string()),
  }),
  z.object({
    kind: z.literal('external'),
    state: z.enum(['pending', 'connecting', 'connected', 'disconnected']),
    endpoint: z.string(),
    lastError: z.nullable(z.string()),
    attempts: z.number(),
    nextRetryAt: z.nullable(z.number()),
  }),
]));

export const tabInfoSchema: z.ZodMiniType<TabInfo> = z.lazy(() => z.object({
  pageId: z.number(),
  worker: z.number(),
  ownerPageId: z.nullable(z.number()),
  ownerWorker: z.optional(z.nullable(z.number())),
  url: z.string(),
  title: z.string(),
  owner: z.nullable(z.string()),
  origin: z.nullable(pageOrigin),
  upstreamSelected: z.boolean(),
  windowId: z.nullable(z.number()),
  tabId: z.optional(z.string()),
  waitingForHuman: z.optional(z.string()),
  crashed: z.optional(z.string()),
}));

const pictureMetadataSchema: z.ZodMiniType<PictureMetadata> = z.lazy(() => z.object({
  deviceWidth: z.number(),
  deviceHeight: z.number(),
  offsetTop: z.number(),
  pageScaleFactor: z.number(),
}));

export const tabPictureSchema: z.ZodMiniType<TabPicture> = z.lazy(() => z.object({
  tabId: z.string(),
  data: z.string(),
  width: z.number(),
  height: z.number(),
  timestamp: z.number(),
  metadata: pictureMetadataSchema,
}));

const activityLogHealthSchema: z.ZodMiniType<ActivityLogHealth> = z.lazy(() => z.object({
  error: z.nullable(z.string()),
  failingSince: z.nullable(z.number()),
  pending: z.number(),
  dropped: z.number(),
}));

const downloadsInfoSchema: z.ZodMiniType<DownloadsInfo> = z.lazy(() => z.object({
  mode: z.enum(['session', 'off', 'cancelled']),
  maxBytes: z.number(),
  sessionMaxBytes: z.optional(z.number()),
  sessionMaxFiles: z.optional(z.number()),
  sessionFolder: z.string(),
  unownedFolder: z.nullable(z.string()),
}));

export const daemonLifetimeSchema: z.ZodMiniType<DaemonLifetime> = z.lazy(() => z.object({
  startedBy: z.enum(['demand', 'daemon-start', 'app', 'daemon-run']),
  idleExitMs: z.nullable(z.number()),
  idleSince: z.nullable(z.number()),
}));

export const daemonStatusSchema: z.ZodMiniType<DaemonStatus> = z.lazy(() => z.object({
  protocolVersion: z.number(),
  version: z.string(),
  profile: z.string(),
  pid: z.number(),
  socketPath: z.string(),
  startedAt: z.number(),
  state: daemonState,
  lastError: z.nullable(z.string()),
  lifetime: z.optional(daemonLifetimeSchema),
  browser: browserInfoSchema,
  chrome: chromeInfoSchema,
  upstream: z.object({ pid: z.nullable(z.number()) }),
  workers: z.array(workerInfoSchema),
  sessions: z.array(sessionInfoSchema),
  queue: z.array(queueEntrySchema),
  settings: z.object({
    sessionTtlMs: z.number(),
    reapIntervalMs: z.number(),
    callTimeoutMs: z.number(),
    workers: z.number(),
    workerIdleMs: z.number(),
    toolTimeoutsMs: z.record(z.string(), z.number()),
  }),
  activityLog: z.optional(activityLogHealthSchema),
  downloads: z.optional(downloadsInfoSchema),
  startup: z.optional(
    z.object({ processAt: z.number(), claimedAt: z.number(), browserAt: z.nullable(z.number()), restoredAt: z.nullable(z.number()), readyAt: z.nullable(z.number()), adopted: z.boolean() }),
  ),
  browserSilentSince: z.optional(z.nullable(z.number())),
  memory: z.optional(z.object({ rssBytes: z.number(), heapUsedBytes: z.number(), youngGenerationBytes: z.number(), externalBytes: z.number() })),
}));

export const daemonEventSchema: z.ZodMiniType<DaemonEvent> = z.lazy(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('daemon'), profile: z.string(), state: daemonState, lastError: z.nullable(z.string()), activityLog: z.optional(activityLogHealthSchema), restarting: z.optional(z.boolean()), browserSilentSince: z.optional(z.nullable(z.number())) }),
  z.object({ type: z.literal('session.updated'), profile: z.string(), session: sessionInfoSchema }),
  z.object({ type: z.literal('session.closed'), profile: z.string(), sessionId: z.string(), reason: closeReason }),
  z.object({ type: z.literal('queue'), profile: z.string(), queue: z.array(queueEntrySchema) }),
  z.object({ type: z.literal('workers'), profile: z.string(), workers: z.array(workerInfoSchema) }),
  z.object({ type: z.literal('tabs'), profile: z.string(), tabs: z.array(tabInfoSchema) }),
  z.object({ type: z.literal('policies'), profile: z.string(), policies: z.array(policyRuleSchema) }),
  z.object({ type: z.literal('activity'), profile: z.string(), entry: activityEntrySchema }),
  z.object({ type: z.literal('picture'), profile: z.string(), picture: tabPictureSchema }),
]));
