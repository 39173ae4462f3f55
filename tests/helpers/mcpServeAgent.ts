import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliPath } from './runCli.js';

/** An agent as MCP clients run one: `tabmux mcp serve` on stdio, driven by the MCP SDK's client. */
export interface McpServeAgent {
  client: Client;
  transport: StdioClientTransport;
  /** The pid of its `mcp serve` process. */
  pid: number;
  /** Errors the client saw on the wire: anything but MCP on the bridge's stdout shows up here. */
  wireErrors: Error[];
  /** Calls a tool; the text of its result, and whether it is an error. */
  call: (name: string, args?: Record<string, unknown>) => Promise<AgentResult>;
  /** The end of what its `mcp serve` wrote on stderr, headed by the agent's name, to show with a failed check. */
  log: () => string;
}

export interface AgentResult {
  text: string;
  isError: boolean;
  structured: unknown;
}

export interface McpServeAgentOptions {
  /** The client's name (`clientInfo.name`), which tabmux shows as the session's label. */
  name: string;
  /** The whole environment of the `mcp serve` process. */
  env: Record<string, string>;
  /** Arguments after `mcp serve`. */
  args?: string[];
  /** Node's own options, before the command. */
  nodeArgs?: string[];
  /** The command's entry point; the installed launcher by default. */
  cli?: string;
  /** How long one call may take before the client gives up (the SDK's default is a minute). */
  callTimeoutMs?: number;
}

/** The most of an agent's stderr kept in memory; `log` shows the end of it. */
const KEPT_LOG_CHARS = 20_000;
const SHOWN_LOG_CHARS = 4_000;

export async function startMcpServeAgent(options: McpServeAgentOptions): Promise<McpServeAgent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), options.cli ?? cliPath(), 'mcp', 'serve', ...(options.args ?? [])],
    env: options.env,
    stderr: 'pipe',
  });
  const client = new Client({ name: options.name, version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (error) => wireErrors.push(error);
  // What the bridge logs is read as it comes: a pipe nobody reads fills up and stops the writer.
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-KEPT_LOG_CHARS);
  });
  await client.connect(transport);
  const requestOptions = options.callTimeoutMs === undefined ? undefined : { timeout: options.callTimeoutMs };
  return {
    client,
    transport,
    pid: transport.pid ?? 0,
    wireErrors,
    call: async (tool, toolArgs = {}) => {
      const result = await client.callTool({ name: tool, arguments: toolArgs }, undefined, requestOptions);
      const content = Array.isArray(result.content) ? result.content : [];
      const text = content.map((item: unknown) => (typeof item === 'object' && item !== null && 'text' in item && typeof item.text === 'string' ? item.text : '')).join('\n');
      return { text, isError: result.isError === true, structured: result.structuredContent };
    },
    log: () => `--- ${options.name}'s mcp serve log ---\n${log.slice(-SHOWN_LOG_CHARS)}`,
  };
}
