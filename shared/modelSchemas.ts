import * as z from 'zod';
import { activityEntrySchema } from './activity.js';
import type {
  BrowserInfo,
  ChromeInfo,
  DaemonEvent,
  DaemonState,
  DaemonStatus,
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
 */

const daemonState: z.ZodType<DaemonState> = z.enum(['starting', 'ready', 'degraded', 'crashed', 'stopping']);
export const profileState: z.ZodType<ProfileState> = z.enum(['stopped', 'starting', 'ready', 'crashed', 'restarting', 'stopping']);
const pageOrigin: z.ZodType<PageOrigin> = z.enum(['created', 'attached', 'opened']);
const sessionActivity: z.ZodType<SessionActivity> = z.enum(['idle', 'busy', 'paused']);
const workerState: z.ZodType<WorkerState> = z.enum(['starting', 'ready', 'restarting', 'stopped', 'failed']);
const closeReason: z.ZodType<SessionCloseReason> = z.enum(['closed', 'expired', 'daemon_stopped']);

export const sessionPageSchema: z.ZodType<SessionPage> = z.object({
  pageId: z.number(),
  url: z.string(),
  title: z.string(),
  origin: pageOrigin,
  current: z.boolean(),
});

export const sessionInfoSchema: z.ZodType<SessionInfo> = z.object({
  id: z.string(),
  label: z.string().nullable(),
  createdAt: z.number(),
  lastUsedAt: z.number(),
  owned: z.boolean(),
  paused: z.boolean(),
  activity: sessionActivity,
  worker: z.number(),
  currentPageId: z.number().nullable(),
  pages: z.array(sessionPageSchema),
  epoch: z.number(),
  queued: z.number(),
  running: z.number(),
});

const queueEntrySchema: z.ZodType<QueueEntry> = z.object({
  callId: z.number(),
  sessionId: z.string(),
  tool: z.string(),
  worker: z.number(),
  state: z.enum(['queued', 'running']),
  enqueuedAt: z.number(),
  startedAt: z.number().nullable(),
});

const workerInfoSchema: z.ZodType<WorkerInfo> = z.object({
  index: z.number(),
  pid: z.number().nullable(),
  state: workerState,
  selectedPageId: z.number().nullable(),
  inFlight: z.number(),
  sessions: z.number(),
  lastError: z.string().nullable(),
});

const chromeInfoSchema: z.ZodType<ChromeInfo> = z.object({
  pid: z.number().nullable(),
  port: z.number().nullable(),
  browserUrl: z.string().nullable(),
  userDataDir: z.string().nullable(),
  headless: z.boolean().nullable(),
  executable: z.string().nullable(),
});

export const browserInfoSchema: z.ZodType<BrowserInfo> = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('launched'),
    pid: z.number().nullable(),
    port: z.number().nullable(),
    browserUrl: z.string().nullable(),
    userDataDir: z.string(),
    headless: z.boolean(),
    executable: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('external'),
    state: z.enum(['pending', 'connecting', 'connected', 'disconnected']),
    endpoint: z.string(),
    lastError: z.string().nullable(),
    attempts: z.number(),
    nextRetryAt: z.number().nullable(),
  }),
]);

export const tabInfoSchema: z.ZodType<TabInfo> = z.object({
  pageId: z.number(),
  worker: z.number(),
  ownerPageId: z.number().nullable(),
  url: z.string(),
  title: z.string(),
  owner: z.string().nullable(),
  origin: pageOrigin.nullable(),
  upstreamSelected: z.boolean(),
  windowId: z.number().nullable(),
  tabId: z.string().optional(),
});

const pictureMetadataSchema: z.ZodType<PictureMetadata> = z.object({
  deviceWidth: z.number(),
  deviceHeight: z.number(),
  offsetTop: z.number(),
  pageScaleFactor: z.number(),
});

export const tabPictureSchema: z.ZodType<TabPicture> = z.object({
  tabId: z.string(),
  data: z.string(),
  width: z.number(),
  height: z.number(),
  timestamp: z.number(),
  metadata: pictureMetadataSchema,
});

export const daemonStatusSchema: z.ZodType<DaemonStatus> = z.object({
  protocolVersion: z.number(),
  version: z.string(),
  profile: z.string(),
  pid: z.number(),
  socketPath: z.string(),
  startedAt: z.number(),
  state: daemonState,
  lastError: z.string().nullable(),
  browser: browserInfoSchema,
  chrome: chromeInfoSchema,
  upstream: z.object({ pid: z.number().nullable() }),
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
});

export const daemonEventSchema: z.ZodType<DaemonEvent> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('daemon'), profile: z.string(), state: daemonState, lastError: z.string().nullable() }),
  z.object({ type: z.literal('session.updated'), profile: z.string(), session: sessionInfoSchema }),
  z.object({ type: z.literal('session.closed'), profile: z.string(), sessionId: z.string(), reason: closeReason }),
  z.object({ type: z.literal('queue'), profile: z.string(), queue: z.array(queueEntrySchema) }),
  z.object({ type: z.literal('workers'), profile: z.string(), workers: z.array(workerInfoSchema) }),
  z.object({ type: z.literal('tabs'), profile: z.string(), tabs: z.array(tabInfoSchema) }),
  z.object({ type: z.literal('activity'), profile: z.string(), entry: activityEntrySchema }),
  z.object({ type: z.literal('picture'), profile: z.string(), picture: tabPictureSchema }),
]);
