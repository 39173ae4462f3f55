import * as z from 'zod';
import { activityQueryResultSchema, activityQuerySchema } from './activity.js';
import type { DaemonEvent } from './model.js';
import { pictureInputSchema } from './pictureInput.js';
import type { EVENT_METHOD } from './protocolConstants.js';
import { browserInfoSchema, daemonStatusSchema, sessionInfoSchema, sessionPageSchema, tabInfoSchema } from './modelSchemas.js';

/**
 * The tabmux control protocol: newline-delimited JSON-RPC 2.0. A connection opens with `tabmux/hello`; after
 * `tabmux/session.bind` the same connection also carries MCP (`initialize`, `tools/list`, `tools/call`, `ping`).
 * Every control method is declared once here, in `controlMethods`; the types are inferred from it.
 */
export { EVENT_METHOD, PROTOCOL_VERSION } from './protocolConstants.js';

export { SESSION_ID_PATTERN } from './sessionId.js';

const sessionId = z.string().max(64).describe('Session id (sess-<16 hex>)');
const pageId = z.number().int().nonnegative().describe('Page id in the session worker terms, as list_pages shows it');
const label = z.string().max(200);

const helloParams = z.object({
  protocolVersion: z.number().int(),
  client: z.object({ name: z.string().max(200), version: z.string().max(100).optional() }).optional(),
});

const toolContentSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const toolResultSchema = z.looseObject({
  content: z.array(toolContentSchema),
  isError: z.boolean().optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

const toolInfoSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.unknown()).optional(),
    required: z.array(z.string()).optional(),
  }),
  annotations: z.record(z.string(), z.unknown()).optional(),
});

const helloResult = z.object({ protocolVersion: z.number(), version: z.string(), profile: z.string(), pid: z.number() });

const sessionPageResult = z.object({
  session: z.string(),
  pageId: z.number().nullable(),
  url: z.string().nullable(),
  pages: z.array(sessionPageSchema),
});

const empty = z.object({}).optional();

/** The most tabs one connection watches at once; a profile's own caps on size and rate apply on top. */
export const MAX_WATCHED_TABS = 32;

const tabId = z.string().min(1).max(128).describe("Chrome's tab id, as tabs.list gives it");
const pictureWatch = z.object({ tabId, size: z.enum(['thumb', 'live']).default('thumb') });

/**
 * Every control method once: `params` is parsed by the daemon before a handler runs, `result` by the client before
 * a caller sees it.
 */
export const controlMethods = {
  'tabmux/hello': { params: helloParams, result: helloResult },
  'tabmux/status': { params: empty, result: daemonStatusSchema },
  'tabmux/stop': { params: empty, result: z.object({ stopping: z.literal(true) }) },
  'tabmux/subscribe': { params: empty, result: daemonStatusSchema },
  'tabmux/tools.list': {
    params: z
      .object({ sessionArg: z.boolean().optional().describe('Add the optional session_id argument and the close_session tool (session-argument mode)') })
      .optional(),
    result: z.object({ tools: z.array(toolInfoSchema) }),
  },
  'tabmux/tabs.list': { params: empty, result: z.object({ tabs: z.array(tabInfoSchema) }) },
  'tabmux/tabs.open': { params: z.object({ url: z.string().max(8192).default('about:blank') }), result: z.object({ tab: tabInfoSchema }) },
  'tabmux/session.create': { params: z.object({ label: label.optional() }).optional(), result: sessionInfoSchema },
  'tabmux/session.list': { params: empty, result: z.object({ sessions: z.array(sessionInfoSchema) }) },
  'tabmux/session.close': { params: z.object({ session: sessionId }), result: z.object({ closed: z.string(), closedPages: z.array(z.number()) }) },
  'tabmux/session.bind': { params: z.object({ session: sessionId }), result: sessionInfoSchema },
  'tabmux/session.unbind': { params: empty, result: z.object({ unbound: z.string().nullable() }) },
  'tabmux/session.page': { params: z.object({ session: sessionId }), result: sessionPageResult },
  'tabmux/session.attach': {
    params: z.object({
      session: sessionId,
      pageId,
      worker: z.number().int().nonnegative().default(0).describe('Worker whose page ids pageId uses; tabmux pages shows worker 0'),
    }),
    result: sessionPageResult,
  },
  'tabmux/session.newPage': {
    params: z.object({
      session: sessionId,
      url: z.string().max(8192).default('about:blank'),
      background: z.boolean().default(true),
    }),
    result: sessionPageResult,
  },
  'tabmux/session.release': { params: z.object({ session: sessionId, pageId: pageId.optional() }), result: sessionPageResult },
  'tabmux/session.select': { params: z.object({ session: sessionId, pageId, bringToFront: z.boolean().default(false) }), result: sessionPageResult },
  'tabmux/session.pause': { params: z.object({ session: sessionId }), result: sessionInfoSchema },
  'tabmux/session.resume': { params: z.object({ session: sessionId }), result: sessionInfoSchema },
  'tabmux/call': {
    params: z.object({
      session: sessionId,
      name: z.string().max(200),
      arguments: z.record(z.string(), z.unknown()).default({}),
    }),
    result: toolResultSchema,
  },
  'tabmux/queue.cancel': { params: z.object({ callId: z.number().int() }), result: z.object({ cancelled: z.boolean() }) },
  /** The activity log: the newest entries that match, oldest first. New ones arrive as `activity` events. */
  'tabmux/log.query': { params: activityQuerySchema.optional(), result: activityQueryResultSchema },
  /**
   * Live pictures: the tabs this connection watches, replacing what it watched before (an empty list stops them
   * all). Frames arrive as `picture` events (`tabmux/event`) on this connection only, subscribed or not; they stop
   * when it closes. `watching` lists the tabs of the list that exist and are captured now.
   */
  'tabmux/pictures.watch': { params: z.object({ tabs: z.array(pictureWatch).max(MAX_WATCHED_TABS) }), result: z.object({ watching: z.array(z.string()) }) },
  'tabmux/pictures.unwatch': { params: empty, result: z.object({ watching: z.array(z.string()) }) },
  /**
   * Takeover: a person's click, wheel, key or typing, sent to a tab this connection watches live. Refused unless
   * the session that owns the tab is paused (`session.pause`), and refused on a connection bound to a session.
   */
  'tabmux/pictures.input': { params: z.object({ tabId, input: pictureInputSchema }), result: z.object({ sent: z.literal(true) }) },
  /** A picture the activity log keeps (an entry's `picture`), as base64 JPEG; null when it is gone or was never taken. */
  'tabmux/log.picture': { params: z.object({ name: z.string().regex(/^[\w-]+\.jpg$/) }), result: z.object({ data: z.string().nullable() }) },
  /** Connects an external browser now instead of at the first call that needs it (the UI's Connect). */
  'tabmux/browser.connect': { params: empty, result: z.object({ browser: browserInfoSchema }) },
} as const satisfies Record<string, { params: z.ZodType; result: z.ZodType }>;

export type ControlMethod = keyof typeof controlMethods;
export type ControlParams<M extends ControlMethod> = z.output<(typeof controlMethods)[M]['params']>;
export type ControlInput<M extends ControlMethod> = z.input<(typeof controlMethods)[M]['params']>;
export type ControlResults = { [M in ControlMethod]: z.output<(typeof controlMethods)[M]['result']> };

export type HelloResult = ControlResults['tabmux/hello'];
export type SessionPageResult = z.output<typeof sessionPageResult>;
export type ToolInfo = z.output<typeof toolInfoSchema>;
export type ToolContent = z.output<typeof toolContentSchema>;
export type ToolResult = z.output<typeof toolResultSchema>;

// The same table seen through a mapped type, which lets a generic method name index it.
const RESULT_TABLE: { [M in ControlMethod]: { result: z.ZodType<ControlResults[M]> } } = controlMethods;

/** The result schema of a control method, typed by the method so a parsed result needs no cast. */
export function controlResultSchema<M extends ControlMethod>(method: M): z.ZodType<ControlResults[M]> {
  return RESULT_TABLE[method].result;
}

export function isControlMethod(method: string): method is ControlMethod {
  return Object.hasOwn(controlMethods, method);
}

export type EventNotification = { jsonrpc: '2.0'; method: typeof EVENT_METHOD; params: DaemonEvent };

/** MCP methods a bound connection may use. */
export const MCP_METHODS = ['initialize', 'notifications/initialized', 'ping', 'tools/list', 'tools/call', 'notifications/cancelled'] as const;

