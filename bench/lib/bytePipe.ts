import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { UpstreamClient } from '../../electron/core/upstream/UpstreamClient.js';
import { asToolResult } from '../../shared/toolResult.js';
import type { Teardown } from './Teardown.js';
import type { CallTool } from './toolCalls.js';

/** A Node process that starts the command after `-e CODE --` and copies bytes both ways, parsing nothing. */
const RELAY =
  "const { spawn } = require('node:child_process');" +
  "const child = spawn(process.execPath, process.argv.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });" +
  'process.stdin.pipe(child.stdin); child.stdout.pipe(process.stdout);' +
  "child.on('exit', () => process.exit(0)); process.stdin.on('end', () => child.kill());";

/** How many byte-copying relays stand between the client and its chrome-devtools-mcp child. */
const RELAYS = { direct: 0, relay: 1, 'two relays': 2 } as const;

export interface SdkUpstream {
  call: CallTool;
  /** The process the SDK client spawned: the first relay, or the upstream child itself when there is none. */
  pid: number | undefined;
}

/**
 * An agent's MCP SDK client on a chrome-devtools-mcp child started as the daemon starts its workers, on the given
 * browser: directly, or through one or two relays that only copy bytes, the floor of one or two more processes
 * between an agent and upstream (two: as many as the bridge and the daemon).
 */
export async function sdkUpstreamClient(teardown: Teardown, browserUrl: string, through: keyof typeof RELAYS): Promise<SdkUpstream> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  Object.assign(env, { CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1', CHROME_DEVTOOLS_MCP_NO_CONFIG_DISCOVERY: '1', CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' });
  const args = UpstreamClient.args({ endpoint: { kind: 'browserUrl', url: browserUrl }, logger: Logger.silent() });
  // Each relay runs what follows its `--` (the next relay, or upstream).
  const relays = Array.from({ length: RELAYS[through] }, () => ['-e', RELAY, '--']).flat();
  const transport = new StdioClientTransport({ command: process.execPath, args: [...relays, ...args], env, stderr: 'ignore' });
  const client = new Client({ name: `tabmux-bench-${through}`, version: '1.0.0' });
  await client.connect(transport);
  teardown.add(`close the ${through} SDK client`, () => client.close());
  return { call: async (name, toolArgs) => asToolResult(await client.callTool({ name, arguments: toolArgs })), pid: transport.pid ?? undefined };
}
