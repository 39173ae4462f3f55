import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HumanRequest } from '../../shared/model.js';
import type { PolicyRule } from '../../shared/policy.js';
import { html, uidOf } from '../helpers/daemonFixture.js';
import { waitFor } from '../helpers/waitFor.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { startMcpServeAgent, type McpServeAgent } from '../helpers/mcpServeAgent.js';

/**
 * Policies as a person sets them (`tabmux policy add/list/remove`) and agents meet them: MCP clients on
 * `tabmux mcp serve`, one real daemon with real Chromium and chrome-devtools-mcp, and a local web server that counts
 * what reaches it. Rules added while agents run apply to their next call.
 */

const { home, cleanup } = makeTestHome();
const ENV: Record<string, string> = { TABMUX_HOME: home, TABMUX_HEADLESS: '1', TABMUX_WORKERS: '1' };

function env(): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      merged[key] = value;
    }
  }
  return { ...merged, ...ENV };
}

const agents: McpServeAgent[] = [];

async function startAgent(name: string): Promise<McpServeAgent> {
  const agent = await startMcpServeAgent({ name, env: env(), callTimeoutMs: 120_000 });
  agents.push(agent);
  return agent;
}

const cli = (...args: string[]): Promise<CliResult> => runCli(args, ENV);

async function addPolicy(...args: string[]): Promise<PolicyRule> {
  const result = await cli('policy', 'add', ...args, '--json');
  expect(result.code, result.stderr + result.stdout).toBe(0);
  return JSON.parse(result.stdout) as PolicyRule;
}

async function removePolicy(id: string): Promise<void> {
  const result = await cli('policy', 'remove', id);
  expect(result.code, result.stderr).toBe(0);
}

function requestOf(tool: string): Promise<HumanRequest> {
  return waitFor(
    async () => {
      const result = await cli('requests', '--json');
      return (JSON.parse(result.stdout) as HumanRequest[]).find((request) => request.kind === 'confirm' && request.tool === tool);
    },
    `a ${tool} waiting for approval`,
    60_000,
  );
}

/** Paths the server was asked for, in order. */
const served: string[] = [];
let server: Server;
let port = 0;

describe('policies', () => {
  beforeAll(async () => {
    server = createServer((request, response) => {
      served.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<title>${request.url ?? ''}</title><p>Served ${request.url ?? ''}</p>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    const started = await cli('daemon', 'start');
    expect(started.code, started.stderr).toBe(0);
  });

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.client.close().catch(() => undefined)));
    await cli('daemon', 'stop');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    cleanup();
  });

  it('a deny rule added while an agent works refuses its navigation before anything reaches the server, naming the rule', async () => {
    const agent = await startAgent('denied');
    expect((await agent.call('list_pages')).isError).toBe(false);
    const rule = await addPolicy('--tool', 'navigate_page,new_page', '--url', `http://127.0.0.1:${port}/*`, '--action', 'deny', '--reason', 'not this server');
    expect(rule).toMatchObject({ tools: ['navigate_page', 'new_page'], url: `http://127.0.0.1:${port}/*`, action: 'deny', reason: 'not this server' });
    expect(rule.id).toMatch(/^pol-[0-9a-f]{6}$/);

    const refused = await agent.call('navigate_page', { url: `http://127.0.0.1:${port}/secret` });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(`policy ${rule.id}`);
    expect(refused.text).toContain('not this server');
    const opened = await agent.call('new_page', { url: `http://127.0.0.1:${port}/other` });
    expect(opened.isError).toBe(true);
    expect(opened.text).toContain(rule.id);
    expect(served).toEqual([]);

    const listed = await cli('policy', 'list', '--json');
    expect((JSON.parse(listed.stdout) as PolicyRule[]).map((each) => each.id)).toEqual([rule.id]);

    // Removed, it stops applying at once.
    await removePolicy(rule.id);
    expect((await agent.call('navigate_page', { url: `http://127.0.0.1:${port}/now-allowed` })).isError).toBe(false);
    expect(served).toContain('/now-allowed');
  });

  it('an allow rule limits its tools to matching sites; page tools are judged by the tab the router knows', async () => {
    const agent = await startAgent('allowed');
    const rule = await addPolicy('--tool', 'navigate_page', '--url', 'localhost', '--action', 'allow');
    const before = served.length;
    const outside = await agent.call('navigate_page', { url: `http://127.0.0.1:${port}/outside` });
    expect(outside.isError).toBe(true);
    expect(outside.text).toContain(`only on localhost (policy ${rule.id})`);
    expect(served.length).toBe(before);
    expect((await agent.call('navigate_page', { url: `http://localhost:${port}/inside` })).isError).toBe(false);
    expect(served).toContain('/inside');

    // A page tool's URL is the session's tab: on localhost, a snapshot is refused by a rule about localhost.
    const snapshotRule = await addPolicy('--tool', 'take_snapshot', '--url', `http://localhost:${port}/*`, '--action', 'deny');
    const snapshot = await agent.call('take_snapshot');
    expect(snapshot.isError).toBe(true);
    expect(snapshot.text).toContain(snapshotRule.id);
    await removePolicy(snapshotRule.id);
    await removePolicy(rule.id);
    expect((await agent.call('take_snapshot')).text).toContain('Served /inside');
  });

  it('a confirm rule holds a click until a person approves it; a denial tells the agent why and the page never changes', async () => {
    const agent = await startAgent('confirmed');
    const page = html('<button onclick="this.dataset.count = Number(this.dataset.count || 0) + 1; this.textContent = \'Paid \' + this.dataset.count">Pay</button>', 'Shop');
    expect((await agent.call('navigate_page', { url: page })).isError).toBe(false);
    const button = uidOf((await agent.call('take_snapshot')).text, 'button', 'Pay');
    const rule = await addPolicy('--tool', 'click', '--url', '*', '--action', 'confirm', '--reason', 'payments need a yes');
    const buttonText = async (): Promise<string> => (await agent.call('evaluate_script', { function: '() => document.querySelector("button").textContent' })).text;

    const clicked = agent.call('click', { uid: button });
    const held = await requestOf('click');
    expect(held).toMatchObject({ kind: 'confirm', policy: rule.id, arguments: { uid: button } });
    expect(held.url).toMatch(/^data:text\/html/);
    // The held click holds nothing else: the same session's own calls run, and the page has not changed.
    expect(await buttonText()).toContain('"Pay"');
    const approved = await cli('approve', held.id);
    expect(approved.code, approved.stderr).toBe(0);
    const result = await clicked;
    expect(result.isError).toBe(false);
    expect(result.text).toContain(`a person approved this call (policy ${rule.id}) from the cli`);
    expect(await buttonText()).toContain('"Paid 1"');

    const again = agent.call('click', { uid: uidOf((await agent.call('take_snapshot')).text, 'button', 'Paid 1') });
    const second = await requestOf('click');
    const denied = await cli('deny', second.id, '--reason', 'not this card');
    expect(denied.code, denied.stderr).toBe(0);
    const refusal = await again;
    expect(refusal.isError).toBe(true);
    expect(refusal.text).toContain('a person denied click');
    expect(refusal.text).toContain('not this card');
    expect(await buttonText()).toContain('"Paid 1"');
    // A decision on a request that is gone says so.
    const late = await cli('approve', second.id);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('was denied');
    await removePolicy(rule.id);
  }, 180_000);

  it('a call a confirm rule holds when the daemon restarts is held again by the next daemon, and runs once when approved', async () => {
    const agent = await startAgent('held-over');
    expect((await agent.call('navigate_page', { url: html('<p>Cart</p>', 'Cart') })).isError).toBe(false);
    const rule = await addPolicy('--tool', 'evaluate_script', '--url', '*', '--action', 'confirm');
    // A call that changes the page, so running it twice would show.
    const counted = agent.call('evaluate_script', { function: '() => { window.runs = (window.runs ?? 0) + 1; return "runs " + window.runs; }' });
    const held = await requestOf('evaluate_script');
    const restarted = await cli('daemon', 'restart');
    expect(restarted.code, restarted.stderr).toBe(0);
    // It never ran: the bridge sends it to the next daemon, which holds it for a person again.
    const again = await waitFor(
      async () => {
        const result = await cli('requests', '--json');
        return (JSON.parse(result.stdout) as HumanRequest[]).find((request) => request.kind === 'confirm' && request.tool === 'evaluate_script' && request.id !== held.id);
      },
      'the call held again',
      60_000,
    );
    const approved = await cli('approve', again.id);
    expect(approved.code, approved.stderr).toBe(0);
    const result = await counted;
    expect(result.isError, `${result.text}\n${agent.log()}`).toBe(false);
    expect(result.text).toContain('runs 1');
    expect(result.text).toMatch(/daemon restarted/);
    await removePolicy(rule.id);
  }, 180_000);

  it('bad rules are usage errors that name what is wrong', async () => {
    const unknownTool = await cli('policy', 'add', '--tool', 'navigate_page,teleport', '--url', '*', '--action', 'deny');
    expect(unknownTool.code).toBe(2);
    expect(unknownTool.stderr).toContain('unknown tool teleport');
    const badPattern = await cli('policy', 'add', '--tool', 'click', '--url', 'shop.example/checkout', '--action', 'confirm');
    expect(badPattern.code).toBe(2);
    expect(badPattern.stderr).toContain('invalid URL pattern "shop.example/checkout"');
    const badAction = await cli('policy', 'add', '--tool', 'click', '--url', '*', '--action', 'maybe');
    expect(badAction.code).toBe(2);
    expect(badAction.stderr).toContain('--action must be one of confirm, deny, allow');
    const gone = await cli('policy', 'remove', 'pol-000000');
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('has no policy pol-000000');
    expect(JSON.parse((await cli('policy', 'list', '--json')).stdout)).toEqual([]);
  });
});
