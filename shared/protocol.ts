import * as z from 'zod/mini';
import './zodMessages.js';
import { activityQueryResultSchema, activityQuerySchema } from './activity.js';
import type { DaemonEvent } from './model.js';
import { pictureInputSchema } from './pictureInput.js';
import { policyRuleSchema } from './policy.js';
import type { EVENT_METHOD } from './protocolConstants.js';
import { browserInfoSchema, daemonLifetimeSchema, daemonStatusSchema, humanRequestSchema, sessionInfoSchema, sessionPageSchema, tabInfoSchema } from './modelSchemas.js';

/**
 * The tabmux control protocol: newline-delimited JSON-RPC 2.0. A connection opens with `tabmux/hello`; after
 * `tabmux/session.bind` the same connection also carries MCP (`initialize`, `tools/list`, `tools/call`, `ping`).
 * Every control method is declared once here, in `controlMethods`; the types are inferred from it.
 */
export { EVENT_METHOD, PROTOCOL_VERSION } from './protocolConstants.js';

export { SESSION_ID_PATTERN } from './sessionId.js';

/**
 * A schema built the first time it is asked for, then kept: see `controlMethods`. (The model's schemas it names are
 * `z.lazy` already, and only need a function that returns them.)
 */
function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/** The longest session id and tool name a control message may carry. */
export const MAX_SESSION_ID = 64;
export const MAX_TOOL_NAME = 200;

const sessionId = once(() => z.string().check(z.maxLength(MAX_SESSION_ID), z.describe('Session id (sess-<16 hex>)')));
const pageId = once(() => z.int().check(z.nonnegative(), z.describe('Page id in the session worker terms, as list_pages shows it')));
const label = once(() => z.string().check(z.maxLength(200)));

const helloParams = once(() => z.object({
  protocolVersion: z.int(),
  client: z.optional(z.object({ name: z.string().check(z.maxLength(200)), version: z.optional(z.string().check(z.maxLength(100))) })),
  /**
   * The connection only looks (a status, a list, the log): it does not keep a daemon that was started on demand from
   * exiting when idle. Sessions it makes still do.
   */
  looksOnly: z.optional(z.boolean()),
}));

const toolContentSchema = once(() => z.looseObject({ type: z.string(), text: z.optional(z.string()) }));

const toolResultSchema = once(() => z.looseObject({
  content: z.array(toolContentSchema()),
  isError: z.optional(z.boolean()),
  structuredContent: z.optional(z.record(z.string(), z.unknown())),
  _meta: z.optional(z.record(z.string(), z.unknown())),
}));

const toolInfoSchema = once(() => z.object({
  name: z.string(),
  description: z.optional(z.string()),
  inputSchema: z.looseObject({
    type: z.literal('object'),
    properties: z.optional(z.record(z.string(), z.unknown())),
    required: z.optional(z.array(z.string())),
  }),
  annotations: z.optional(z.record(z.string(), z.unknown())),
}));

const helloResult = once(() => z.object({ protocolVersion: z.number(), version: z.string(), profile: z.string(), pid: z.number() }));

const sessionPageResult = once(() => z.object({
  session: z.string(),
  pageId: z.nullable(z.number()),
  url: z.nullable(z.string()),
  pages: z.array(sessionPageSchema),
}));

const empty = once(() => z.optional(z.object({})));

/** The most tabs one connection watches at once; a profile's own caps on size and rate apply on top. */
export const MAX_WATCHED_TABS = 32;

const tabId = once(() => z.string().check(z.minLength(1), z.maxLength(128), z.describe("Chrome's tab id, as tabs.list gives it")));
const pictureWatch = once(() => z.object({ tabId: tabId(), size: z._default(z.enum(['thumb', 'live']), 'thumb') }));

/**
 * Every control method once: `params` is parsed by the daemon before a handler runs, `result` by the client before
 * a caller sees it. Each is built the first time it is asked for: a daemon builds the params of the methods its
 * clients call and no result, a client the results it reads (every schema built at load cost a daemon heap for good:
 * ~0.35 MiB for this table and the model's schemas, and ~10 ms of its start).
 */
export const controlMethods = {
  'tabmux/hello': { params: helloParams, result: helloResult },
  'tabmux/status': { params: empty, result: () => daemonStatusSchema },
  'tabmux/stop': {
    params: once(() => z.optional(
      z.object({
        keepBrowser: z.optional(z.boolean()).check(z.describe('Leave a Chrome tabmux launched running, with the sessions and their tabs, for the next daemon (tabmux daemon restart)')),
      }),
    )),
    result: once(() => z.object({ stopping: z.literal(true) })),
  },
  /** `daemon start` on a running daemon: one started on demand stays until it is stopped from now on. */
  'tabmux/keep': { params: empty, result: once(() => z.object({ lifetime: daemonLifetimeSchema })) },
  'tabmux/subscribe': { params: empty, result: () => daemonStatusSchema },
  'tabmux/tools.list': {
    params: once(() => z.optional(
      z.object({ sessionArg: z.optional(z.boolean()).check(z.describe('Add the optional session_id argument and the close_session tool (session-argument mode)')) }),
    )),
    result: once(() => z.object({ tools: z.array(toolInfoSchema()) })),
  },
  'tabmux/tabs.list': { params: empty, result: once(() => z.object({ tabs: z.array(tabInfoSchema) })) },
  'tabmux/tabs.open': { params: once(() => z.object({ url: z._default(z.string().check(z.maxLength(8192)), 'about:blank') })), result: once(() => z.object({ tab: tabInfoSchema })) },
  'tabmux/session.create': { params: once(() => z.optional(z.object({ label: z.optional(label()) }))), result: () => sessionInfoSchema },
  'tabmux/session.list': { params: empty, result: once(() => z.object({ sessions: z.array(sessionInfoSchema) })) },
  'tabmux/session.close': { params: once(() => z.object({ session: sessionId() })), result: once(() => z.object({ closed: z.string(), closedPages: z.array(z.number()) })) },
  'tabmux/session.bind': { params: once(() => z.object({ session: sessionId() })), result: () => sessionInfoSchema },
  'tabmux/session.unbind': { params: empty, result: once(() => z.object({ unbound: z.nullable(z.string()) })) },
  'tabmux/session.page': { params: once(() => z.object({ session: sessionId() })), result: sessionPageResult },
  'tabmux/session.attach': {
    params: once(() => z.object({
      session: sessionId(),
      pageId: pageId(),
      worker: z._default(z.int().check(z.nonnegative()), 0).check(z.describe('Worker whose page ids pageId uses; tabmux pages shows worker 0')),
    })),
    result: sessionPageResult,
  },
  'tabmux/session.newPage': {
    params: once(() => z.object({
      session: sessionId(),
      url: z._default(z.string().check(z.maxLength(8192)), 'about:blank'),
      background: z._default(z.boolean(), true),
    })),
    result: sessionPageResult,
  },
  'tabmux/session.release': { params: once(() => z.object({ session: sessionId(), pageId: z.optional(pageId()) })), result: sessionPageResult },
  'tabmux/session.select': { params: once(() => z.object({ session: sessionId(), pageId: pageId(), bringToFront: z._default(z.boolean(), false) })), result: sessionPageResult },
  'tabmux/session.pause': { params: once(() => z.object({ session: sessionId() })), result: () => sessionInfoSchema },
  'tabmux/session.resume': { params: once(() => z.object({ session: sessionId() })), result: () => sessionInfoSchema },
  'tabmux/call': {
    params: once(() => z.object({
      session: sessionId(),
      name: z.string().check(z.maxLength(MAX_TOOL_NAME)),
      arguments: z._default(z.record(z.string(), z.unknown()), {}),
    })),
    result: toolResultSchema,
  },
  'tabmux/queue.cancel': { params: once(() => z.object({ callId: z.int() })), result: once(() => z.object({ cancelled: z.boolean() })) },
  /** The activity log: the newest entries that match, oldest first. New ones arrive as `activity` events. */
  'tabmux/log.query': { params: once(() => z.optional(activityQuerySchema)), result: () => activityQueryResultSchema },
  /**
   * Live pictures: the tabs this connection watches, replacing what it watched before (an empty list stops them
   * all). Frames arrive as `picture` events (`tabmux/event`) on this connection only, subscribed or not; they stop
   * when it closes. `watching` lists the tabs of the list that exist and are captured now.
   */
  'tabmux/pictures.watch': { params: once(() => z.object({ tabs: z.array(pictureWatch()).check(z.maxLength(MAX_WATCHED_TABS)) })), result: once(() => z.object({ watching: z.array(z.string()) })) },
  'tabmux/pictures.unwatch': { params: empty, result: once(() => z.object({ watching: z.array(z.string()) })) },
  /**
   * Takeover: a person's click, wheel, key or typing, sent to a tab this connection watches live. Refused unless
   * the session that owns the tab is paused (`session.pause`), and refused on a connection bound to a session.
   */
  'tabmux/pictures.input': { params: once(() => z.object({ tabId: tabId(), input: pictureInputSchema })), result: once(() => z.object({ sent: z.literal(true) })) },
  /** A picture the activity log keeps (an entry's `picture`), as base64 JPEG; null when it is gone or was never taken. */
  'tabmux/log.picture': { params: once(() => z.object({ name: z.string().check(z.regex(/^[\w-]+\.jpg$/)) })), result: once(() => z.object({ data: z.nullable(z.string()) })) },
  /** Connects an external browser now instead of at the first call that needs it (the UI's Connect). */
  'tabmux/browser.connect': { params: empty, result: once(() => z.object({ browser: browserInfoSchema })) },
  /**
   * A dashboard started or stopped: the daemon reads the dashboards' records in its runtime dir again (the caller
   * cannot name ports) and answers with the ports its browser's tabs are now kept away from.
   */
  'tabmux/dashboards.refresh': { params: empty, result: once(() => z.object({ ports: z.array(z.int()) })) },
  /** The profile's policy rules as the daemon applies them now. */
  'tabmux/policies.list': { params: empty, result: once(() => z.object({ policies: z.array(policyRuleSchema) })) },
  /** The profile's config changed (tabmux policy add/remove): the daemon reads its rules again and applies them at once. */
  'tabmux/policies.reload': { params: empty, result: once(() => z.object({ policies: z.array(policyRuleSchema) })) },
  /** Adds a rule to the profile's config and applies it at once (the dashboard's form; the CLI writes the file itself). */
  'tabmux/policies.add': {
    params: once(() => z.object({
      tools: z.array(z.string().check(z.maxLength(200))).check(z.maxLength(100)),
      url: z.string().check(z.maxLength(2000)),
      action: z.string().check(z.maxLength(20)),
      reason: z.optional(z.string().check(z.maxLength(1000))),
    })),
    result: once(() => z.object({ policy: policyRuleSchema, policies: z.array(policyRuleSchema) })),
  },
  /** Removes a rule from the profile's config and stops applying it at once. */
  'tabmux/policies.remove': { params: once(() => z.object({ id: z.string().check(z.maxLength(64)) })), result: once(() => z.object({ removed: z.string(), policies: z.array(policyRuleSchema) })) },
  /** What waits for a person now (agents' questions), oldest first. */
  'tabmux/requests.list': { params: empty, result: once(() => z.object({ requests: z.array(humanRequestSchema) })) },
  /** A person's answer to a question: its text becomes the agent's `ask_human` result. */
  'tabmux/requests.answer': {
    params: once(() => z.object({
      id: z.string().check(z.maxLength(64), z.describe('The request id, as tabmux requests lists it')),
      text: z.string().check(z.maxLength(100_000)),
      by: z._default(z.enum(['cli', 'dashboard']), 'cli').check(z.describe('Who answered, for the activity log')),
    })),
    result: once(() => z.object({ answered: z.string(), sessionId: z.string() })),
  },
  /** A person's decision on a call a confirm policy holds: approved, it runs; denied, the agent gets the reason. */
  'tabmux/requests.decide': {
    params: once(() => z.object({
      id: z.string().check(z.maxLength(64), z.describe('The request id, as tabmux requests lists it')),
      approve: z.boolean(),
      reason: z.optional(z.string().check(z.maxLength(2000))),
      by: z._default(z.enum(['cli', 'dashboard']), 'cli').check(z.describe('Who decided, for the agent and the activity log')),
    })),
    result: once(() => z.object({ decided: z.string(), sessionId: z.string(), approved: z.boolean() })),
  },
} as const satisfies Record<string, { params: () => z.ZodMiniType; result: () => z.ZodMiniType }>;

export type ControlMethod = keyof typeof controlMethods;
export type ControlParams<M extends ControlMethod> = z.output<ReturnType<(typeof controlMethods)[M]['params']>>;
export type ControlInput<M extends ControlMethod> = z.input<ReturnType<(typeof controlMethods)[M]['params']>>;
export type ControlResults = { [M in ControlMethod]: z.output<ReturnType<(typeof controlMethods)[M]['result']>> };

export type HelloResult = ControlResults['tabmux/hello'];
export type SessionPageResult = z.output<ReturnType<typeof sessionPageResult>>;
export type ToolInfo = z.output<ReturnType<typeof toolInfoSchema>>;
export type ToolContent = z.output<ReturnType<typeof toolContentSchema>>;
export type ToolResult = z.output<ReturnType<typeof toolResultSchema>>;

// The same table seen through a mapped type, which lets a generic method name index it.
const RESULT_TABLE: { [M in ControlMethod]: { result: () => z.ZodMiniType<ControlResults[M]> } } = controlMethods;

/** The result schema of a control method, typed by the method so a parsed result needs no cast. */
export function controlResultSchema<M extends ControlMethod>(method: M): z.ZodMiniType<ControlResults[M]> {
  return RESULT_TABLE[method].result();
}

export function isControlMethod(method: string): method is ControlMethod {
  return Object.hasOwn(controlMethods, method);
}

export type EventNotification = { jsonrpc: '2.0'; method: typeof EVENT_METHOD; params: DaemonEvent };

/** MCP methods a bound connection may use. */
export const MCP_METHODS = ['initialize', 'notifications/initialized', 'ping', 'tools/list', 'tools/call', 'notifications/cancelled'] as const;

