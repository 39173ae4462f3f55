import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonStatus, SessionInfo, TabInfo } from '../../shared/model.js';
import { packageRoot } from '../../electron/core/platform/version.js';
import { html } from '../helpers/daemonFixture.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor } from '../helpers/waitFor.js';
import { startMcpServeAgent, type McpServeAgent } from '../helpers/mcpServeAgent.js';

/**
 * `tabmux mcp serve --profile one --profile two`: one MCP server, driven by the SDK client, in front of two
 * profiles, each with its own daemon and its own real Chromium.
 */

const execFileAsync = promisify(execFile);
const CLI = join(packageRoot(), 'dist', 'electron', 'bin', 'tabmux.js');

const { home, cleanup } = makeTestHome();
const env = (): Record<string, string> => {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      merged[key] = value;
    }
  }
  return { ...merged, TABMUX_HOME: home, TABMUX_HEADLESS: '1' };
};

type Served = McpServeAgent;

const clients: Client[] = [];

async function serve(...args: string[]): Promise<Served> {
  const served = await startMcpServeAgent({ name: 'multi-agent', cli: CLI, args, env: env() });
  clients.push(served.client);
  return served;
}

async function cli<T>(...args: string[]): Promise<T> {
  const { stdout } = await execFileAsync(process.execPath, [CLI, ...args, '--json'], { env: env() });
  return JSON.parse(stdout) as T;
}

const tabs = (profile: string): Promise<TabInfo[]> => cli<TabInfo[]>('pages', '--profile', profile);
const sessions = (profile: string): Promise<SessionInfo[]> => cli<SessionInfo[]>('session', 'list', '--profile', profile);

describe('tabmux mcp serve with several profiles', () => {
  beforeAll(async () => {
    await cli('profile', 'add', 'one', '--headless');
    await cli('profile', 'add', 'two', '--headless');
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    for (const profile of ['one', 'two']) {
      await execFileAsync(process.execPath, [CLI, 'daemon', 'stop', '--profile', profile], { env: env() }).catch(() => undefined);
    }
    cleanup();
  });

  it('requires a browser argument naming a served profile on every tool, and lists the browsers', async () => {
    const served = await serve('--profile', 'one', '--profile', 'two');
    const { tools } = await served.client.listTools();
    const click = tools.find((tool) => tool.name === 'click');
    expect(click?.inputSchema.properties?.['browser']).toMatchObject({ type: 'string', enum: ['one', 'two'] });
    for (const tool of tools.filter((candidate) => candidate.name !== 'list_browsers')) {
      expect(tool.inputSchema.required ?? [], tool.name).toContain('browser');
    }
    expect(tools.find((tool) => tool.name === 'list_browsers')?.inputSchema.properties ?? {}).not.toHaveProperty('browser');

    const missing = await served.call('list_pages');
    expect(missing).toMatchObject({ isError: true, text: 'Error: list_pages needs a browser argument: pass one of one, two (call list_browsers to see them)' });
    const unknown = await served.call('list_pages', { browser: 'three' });
    expect(unknown).toMatchObject({ isError: true, text: 'Error: list_pages got browser "three", which is not served here: pass one of one, two (call list_browsers to see them)' });

    const listed = await served.call('list_browsers');
    expect(listed.isError).toBe(false);
    expect(listed.text).toContain('- one: launched, ready');
    expect(listed.text).toContain('- two: launched, ready');
    expect(listed.structured).toEqual({
      browsers: [
        { name: 'one', kind: 'launched', state: 'ready', endpoint: null, lastError: null },
        { name: 'two', kind: 'launched', state: 'ready', endpoint: null, lastError: null },
      ],
    });
  });

  it('routes each call to the browser it names, each a Chrome of its own', async () => {
    const served = await serve('--profile', 'one', '--profile', 'two');
    expect((await served.call('new_page', { browser: 'one', url: html('<p>one</p>', 'Only-In-One') })).isError).toBe(false);
    expect((await served.call('new_page', { browser: 'two', url: html('<p>two</p>', 'Only-In-Two') })).isError).toBe(false);
    const inOne = await served.call('list_pages', { browser: 'one' });
    const inTwo = await served.call('list_pages', { browser: 'two' });
    expect(inOne.text).toContain('Only-In-One');
    expect(inOne.text).not.toContain('Only-In-Two');
    expect(inTwo.text).toContain('Only-In-Two');
    expect(inTwo.text).not.toContain('Only-In-One');
    const titles = async (profile: string): Promise<string[]> => (await tabs(profile)).map((tab) => tab.title);
    expect(await titles('one')).toContain('Only-In-One');
    expect(await titles('one')).not.toContain('Only-In-Two');
    expect(await titles('two')).toContain('Only-In-Two');
    expect(await titles('two')).not.toContain('Only-In-One');

    const [statusOne, statusTwo] = await Promise.all([cli<DaemonStatus>('daemon', 'status', '--profile', 'one'), cli<DaemonStatus>('daemon', 'status', '--profile', 'two')]);
    expect(statusOne.chrome.pid).toEqual(expect.any(Number));
    expect(statusTwo.chrome.pid).toEqual(expect.any(Number));
    expect(statusOne.chrome.pid).not.toBe(statusTwo.chrome.pid);
  });

  it('keeps session ids per profile with --session-arg, and closes its sessions in every profile when it leaves', async () => {
    const served = await serve('--profile', 'one', '--profile', 'two', '--session-arg');
    await served.call('new_page', { browser: 'one', session_id: 'shared-id', url: html('<p>a</p>', 'Arg-One') });
    await served.call('new_page', { browser: 'two', session_id: 'shared-id', url: html('<p>b</p>', 'Arg-Two') });
    const listed = await served.call('list_pages', { browser: 'one', session_id: 'shared-id' });
    expect(listed.text).toContain('Arg-One');
    expect(listed.text).not.toContain('Arg-Two');
    expect((await sessions('one')).map((session) => session.label)).toContain('shared-id');
    expect((await sessions('two')).map((session) => session.label)).toContain('shared-id');
    expect((await served.call('close_session', { session_id: 'shared-id' })).isError).toBe(true);

    await served.client.close();
    for (const profile of ['one', 'two']) {
      await waitFor(async () => ((await sessions(profile)).some((session) => session.label === 'shared-id') ? undefined : true), `the session in ${profile} to close`);
      expect((await tabs(profile)).some((tab) => tab.title.startsWith('Arg-'))).toBe(false);
    }
  });

  it('serves one profile as before: no browser parameter, and a browser argument is refused', async () => {
    const served = await serve('--profile', 'one');
    const { tools } = await served.client.listTools();
    expect(tools.map((tool) => tool.name)).not.toContain('list_browsers');
    for (const tool of tools) {
      expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).not.toContain('browser');
    }
    const refused = await served.call('list_pages', { browser: 'one' });
    expect(refused).toMatchObject({
      isError: true,
      text: 'Error: this server serves one browser (profile one), so tools take no browser argument; call list_pages again without it',
    });
    expect((await served.call('list_pages')).isError).toBe(false);
  });
});
