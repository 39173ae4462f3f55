import { z } from 'zod';
import type { DaemonEvent, DaemonStatus, SessionInfo, SessionPage, TabInfo } from './model.js';

/**
 * The tabmux control protocol: newline-delimited JSON-RPC 2.0. A connection opens with `tabmux/hello`; after
 * `tabmux/session.bind` the same connection also carries MCP (`initialize`, `tools/list`, `tools/call`, `ping`).
 * Every control method is declared once here: its params schema (parsed on the daemon side) and its result type.
 */
export const PROTOCOL_VERSION = 1;

/** Longest line a daemon accepts from a client. Responses (snapshots) may be longer; clients accept up to 64 MiB. */
export const MAX_REQUEST_LINE_BYTES = 4 * 1024 * 1024;
export const MAX_RESPONSE_LINE_BYTES = 64 * 1024 * 1024;

export const SESSION_ID_PATTERN = /^sess-[0-9a-f]{16}$/;

const sessionId = z.string().max(64).describe('Session id (sess-<16 hex>)');
const pageId = z.number().int().nonnegative().describe('Page id in the session worker terms, as list_pages shows it');
const label = z.string().max(200);

export const helloParams = z.object({
  protocolVersion: z.number().int(),
  client: z.object({ name: z.string().max(200), version: z.string().max(100).optional() }).optional(),
});

export const controlParams = {
  'tabmux/hello': helloParams,
  'tabmux/status': z.object({}).optional(),
  'tabmux/stop': z.object({}).optional(),
  'tabmux/subscribe': z.object({}).optional(),
  'tabmux/tools.list': z
    .object({ sessionArg: z.boolean().optional().describe('Add the optional session_id argument and the close_session tool (session-argument mode)') })
    .optional(),
  'tabmux/tabs.list': z.object({}).optional(),
  'tabmux/tabs.open': z.object({ url: z.string().max(8192).default('about:blank') }),
  'tabmux/session.create': z.object({ label: label.optional() }).optional(),
  'tabmux/session.list': z.object({}).optional(),
  'tabmux/session.close': z.object({ session: sessionId }),
  'tabmux/session.bind': z.object({ session: sessionId }),
  'tabmux/session.unbind': z.object({}).optional(),
  'tabmux/session.page': z.object({ session: sessionId }),
  'tabmux/session.attach': z.object({
    session: sessionId,
    pageId,
    worker: z.number().int().nonnegative().default(0).describe('Worker whose page ids pageId uses; tabmux pages shows worker 0'),
  }),
  'tabmux/session.newPage': z.object({
    session: sessionId,
    url: z.string().max(8192).default('about:blank'),
    background: z.boolean().default(true),
  }),
  'tabmux/session.release': z.object({ session: sessionId, pageId: pageId.optional() }),
  'tabmux/session.select': z.object({ session: sessionId, pageId, bringToFront: z.boolean().default(false) }),
  'tabmux/session.pause': z.object({ session: sessionId }),
  'tabmux/session.resume': z.object({ session: sessionId }),
  'tabmux/call': z.object({
    session: sessionId,
    name: z.string().max(200),
    arguments: z.record(z.string(), z.unknown()).default({}),
  }),
  'tabmux/queue.cancel': z.object({ callId: z.number().int() }),
} as const;

export type ControlMethod = keyof typeof controlParams;
export type ControlParams<M extends ControlMethod> = z.output<(typeof controlParams)[M]>;
export type ControlInput<M extends ControlMethod> = z.input<(typeof controlParams)[M]>;

export interface HelloResult {
  protocolVersion: number;
  version: string;
  profile: string;
  pid: number;
}

export interface SessionPageResult {
  session: string;
  pageId: number | null;
  url: string | null;
  pages: SessionPage[];
}

export interface ToolInfo {
  name: string;
  description?: string | undefined;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
  annotations?: Record<string, unknown> | undefined;
}

export interface ToolContent {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface ToolResult {
  content: ToolContent[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ControlResults {
  'tabmux/hello': HelloResult;
  'tabmux/status': DaemonStatus;
  'tabmux/stop': { stopping: true };
  'tabmux/subscribe': DaemonStatus;
  'tabmux/tools.list': { tools: ToolInfo[] };
  'tabmux/tabs.list': { tabs: TabInfo[] };
  'tabmux/tabs.open': { tab: TabInfo };
  'tabmux/session.create': SessionInfo;
  'tabmux/session.list': { sessions: SessionInfo[] };
  'tabmux/session.close': { closed: string; closedPages: number[] };
  'tabmux/session.bind': SessionInfo;
  'tabmux/session.unbind': { unbound: string | null };
  'tabmux/session.page': SessionPageResult;
  'tabmux/session.attach': SessionPageResult;
  'tabmux/session.newPage': SessionPageResult;
  'tabmux/session.release': SessionPageResult;
  'tabmux/session.select': SessionPageResult;
  'tabmux/session.pause': SessionInfo;
  'tabmux/session.resume': SessionInfo;
  'tabmux/call': ToolResult;
  'tabmux/queue.cancel': { cancelled: boolean };
}

export function isControlMethod(method: string): method is ControlMethod {
  return Object.hasOwn(controlParams, method);
}

/** Notification method that carries a `DaemonEvent` to subscribed connections. */
export const EVENT_METHOD = 'tabmux/event';
export type EventNotification = { jsonrpc: '2.0'; method: typeof EVENT_METHOD; params: DaemonEvent };

/** MCP methods a bound connection may use. */
export const MCP_METHODS = ['initialize', 'notifications/initialized', 'ping', 'tools/list', 'tools/call', 'notifications/cancelled'] as const;
