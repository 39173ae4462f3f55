import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliEntryPoint } from '../../electron/core/platform/version.js';
import { asToolResult } from '../../shared/toolResult.js';
import type { Teardown } from './Teardown.js';
import type { CallTool } from './toolCalls.js';

export interface BridgeProcess {
  client: Client;
  call: CallTool;
  /** The bridge process (`tabmux mcp serve`). */
  pid: number | undefined;
  /** Spawn of `tabmux mcp serve` to its `tools/list` answered, in ms. */
  attachMs: number;
  close: () => Promise<void>;
}

/** The environment of this process plus `extra`, with no undefined values (what a child process is given). */
function childEnv(extra: Readonly<Record<string, string>>): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      merged[key] = value;
    }
  }
  return { ...merged, ...extra };
}

/**
 * `tabmux mcp serve` as an agent's MCP client starts it: a child process on stdio, driven by the SDK client, timed
 * from the spawn to the answer of its first `tools/list`. `nodeFlags` go to Node before the entry point.
 */
export async function startBridge(teardown: Teardown, env: Readonly<Record<string, string>>, name = 'tabmux-bench', nodeFlags: readonly string[] = []): Promise<BridgeProcess> {
  const started = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [...nodeFlags, cliEntryPoint(), 'mcp', 'serve'], env: childEnv(env), stderr: 'ignore' });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  const attachMs = performance.now() - started;
  let closed = false;
  const close = async (): Promise<void> => {
    if (!closed) {
      closed = true;
      await client.close();
    }
  };
  teardown.add(`close bridge ${String(transport.pid)}`, close);
  return { client, call: async (tool, args) => asToolResult(await client.callTool({ name: tool, arguments: args })), pid: transport.pid ?? undefined, attachMs, close };
}
