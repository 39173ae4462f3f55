import type { TabmuxError } from '../../../shared/errors.js';
import type { JsonRpcId } from '../../../shared/jsonrpc.js';
import type { ToolInfo, ToolResult } from '../../../shared/protocol.js';
import type { CancelSignal } from './CancelSignal.js';
import type { RelayedResult } from './RelayedResult.js';

export interface CallOptions {
  signal?: CancelSignal | undefined;
  progressToken?: string | number | undefined;
}

/** A way for the client's plain tool calls to reach the daemon as the client wrote them. */
export interface ToolLane {
  /**
   * Sends one `tools/call` line (without its newline) under the client's id; `args` are its arguments, read. `done`
   * gets the reply line to write as it is, a tool error to write, or an `unknown_tool` error. False when the lane does
   * not take the call, which then goes to `callTool`.
   */
  call(id: JsonRpcId, line: Buffer, args: Record<string, unknown>, done: (reply: Buffer | ToolResult | TabmuxError) => void): boolean;
  /** The client cancelled the call with this id. */
  cancel(id: JsonRpcId): void;
}

/** What the MCP server of `tabmux mcp serve` asks of the bridge behind it, for one profile or several. */
export interface ToolBridge {
  /** The MCP client's name from `initialize`, used as the session label unless --label was given. */
  setClientName(name: string | undefined): void;
  /** Starts connecting (and the daemon, with its Chrome) while the client is still initializing. */
  warmUp(): void;
  /** The client finished `initialize`. */
  start(): void;
  listTools(): Promise<ToolInfo[]>;
  /** A result to write out; the daemon's own bytes where the bridge has nothing to add to them. */
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolResult | RelayedResult>;
  /** The lane for plain tool calls, when there is one now; `callTool` serves every call without it. */
  lane?(): ToolLane | undefined;
  /** Closes the sessions the bridge created (and so the tabs they opened), then its daemon connections. */
  close(): Promise<void>;
}
