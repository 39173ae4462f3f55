import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cliDriver } from '../helpers/cliDriver.js';
import { cliPath } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';

/**
 * `tabmux mcp serve` as an MCP client sees it, with the real SDK client over stdio (run `npm run build` first): error
 * messages carry their code once (the client adds it), and a profile whose browser cannot start still answers
 * initialize and tools/list from the tool catalogue, while each call says what is wrong and how to fix it.
 */

const { home, cleanup } = makeTestHome();
const { tabmux, ok } = cliDriver(home);
const clients: Client[] = [];

function environment(): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('TABMUX_')) {
      merged[key] = value;
    }
  }
  return { ...merged, TABMUX_HOME: home, TABMUX_HEADLESS: '1' };
}

async function connect(args: readonly string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath(), 'mcp', 'serve', ...args], env: environment(), stderr: 'pipe' });
  const client = new Client({ name: 'mcp-errors-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
  return content.map((item) => item.text ?? '').join('\n');
}

afterAll(async () => {
  for (const client of clients) {
    await client.close().catch(() => undefined);
  }
  await tabmux(['daemon', 'stop', '--all']);
  cleanup();
});

describe('mcp serve errors', () => {
  it('an error message shows its code once, as the client words it', async () => {
    const client = await connect([]);
    const refused = await client.callTool({ name: 'nope', arguments: {} }).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(refused).toBe('MCP error -32602: Tool nope not found');
    expect(refused?.match(/MCP error/g)).toHaveLength(1);
    // A typo is answered with the tool it most likely meant.
    const typo = await client.callTool({ name: 'take_snapshots', arguments: {} }).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(typo).toBe('MCP error -32602: Tool take_snapshots not found; did you mean take_snapshot?');
  });

  it('a profile whose browser cannot start lists its tools, and each call says what is wrong and what to do', async () => {
    await ok(['profile', 'add', 'broken', '--chrome', '/nonexistent/chrome']);
    const client = await connect(['--profile', 'broken']);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['take_snapshot', 'click', 'navigate_page', 'list_pages']));
    // tabmux's rewriting applies: agents never pass pageId.
    expect(tools.find((tool) => tool.name === 'take_snapshot')?.inputSchema.properties).not.toHaveProperty('pageId');
    const result = await client.callTool({ name: 'list_pages', arguments: {} });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/Chrome not found at \/nonexistent\/chrome/);
    expect(text).toMatch(/--chrome|TABMUX_CHROME/);
    expect(text).toMatch(/profile broken/);
  });
});
