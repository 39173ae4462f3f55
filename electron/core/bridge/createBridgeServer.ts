/* eslint-disable @typescript-eslint/no-deprecated -- McpServer wants each tool as a zod schema it owns; a bridge must
   pass the daemon's JSON schemas through untouched, which is what the low-level Server is kept for. */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  McpError,
  ServerNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../Logger.js';
import type { ToolBridge } from './ToolBridge.js';

const INSTRUCTIONS =
  'Browser tools for a shared, logged-in Chrome profile. Your tab(s) are private: other agents using the same ' +
  'profile cannot see or touch them, and you cannot see theirs. Element uids in snapshots are session tokens; ' +
  'after a "stale uid token" error, call take_snapshot again and use the new uids.';

const SESSION_ARG_INSTRUCTIONS =
  ' Pass the same session_id (any string you choose) on every call to keep working in the same tab; a new ' +
  'session_id starts a new session with its own tab, and close_session ends one.';

const SEVERAL_BROWSERS_INSTRUCTIONS =
  ' This server serves several browsers, each its own Chrome profile with its own logins: every tool needs a ' +
  'browser argument naming one, and list_browsers lists them.';

/**
 * The MCP face of the bridge: the SDK's low-level server with tools/list and tools/call handed to `McpBridge`.
 * The SDK answers ping, initialize and any method we do not serve, so no client request is left hanging.
 */
export function createBridgeServer(bridge: ToolBridge, options: { version: string; sessionArg: boolean; severalBrowsers: boolean; logger: Logger }): Server {
  const server = new Server(
    { name: 'tabmux', version: options.version },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: INSTRUCTIONS + (options.sessionArg ? SESSION_ARG_INSTRUCTIONS : '') + (options.severalBrowsers ? SEVERAL_BROWSERS_INSTRUCTIONS : ''),
    },
  );
  server.oninitialized = () => {
    bridge.setClientName(server.getClientVersion()?.name);
    bridge.start();
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    try {
      return ListToolsResultSchema.parse({ tools: await bridge.listTools() });
    } catch (error) {
      throw new McpError(ErrorCode.InternalError, TabmuxError.from(error).message);
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    try {
      const result = await bridge.callTool(name, args, { signal: extra.signal, progressToken: request.params._meta?.progressToken });
      const parsed = CallToolResultSchema.safeParse(result);
      if (parsed.success) {
        return parsed.data;
      }
      options.logger.warn(`${name} returned a result that is not valid MCP: ${parsed.error.message}`);
      return { content: [{ type: 'text', text: `Error: ${name} returned a malformed result; try the call again` }], isError: true };
    } catch (error) {
      const failure = TabmuxError.from(error);
      throw new McpError(failure.code === 'unknown_tool' ? ErrorCode.InvalidParams : ErrorCode.InternalError, failure.message);
    }
  });
  return server;
}

/** Passes an MCP notification from the daemon (progress, logging, list changes) on to the client, if it is one. */
export function forwardNotification(server: Server, method: string, params: unknown): void {
  const parsed = ServerNotificationSchema.safeParse(params === undefined ? { method } : { method, params });
  if (parsed.success) {
    server.notification(parsed.data).catch(() => undefined);
  }
}
