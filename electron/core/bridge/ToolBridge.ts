import type { ToolInfo, ToolResult } from '../../../shared/protocol.js';
import type { CancelSignal } from './CancelSignal.js';
import type { RelayedResult } from './RelayedResult.js';

export interface CallOptions {
  signal?: CancelSignal | undefined;
  progressToken?: string | number | undefined;
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
  /** Closes the sessions the bridge created (and so the tabs they opened), then its daemon connections. */
  close(): Promise<void>;
}
