import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../shared/activity.js';
import type { HumanRequest, SessionInfo, TabInfo } from '../../shared/model.js';
import { html } from '../helpers/daemonFixture.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitFor } from '../helpers/waitFor.js';
import { startMcpServeAgent, type McpServeAgent } from '../helpers/mcpServeAgent.js';

/**
 * `ask_human` as agents use it: MCP clients (the SDK) on `tabmux mcp serve`, a person at the CLI (`tabmux requests`,
 * `tabmux answer`), one real daemon with real Chromium and chrome-devtools-mcp. One worker, so that a question
 * holding it would show as every other call stuck behind it.
 */

const { home, cleanup } = makeTestHome();
const ENV: Record<string, string> = { TABMUX_HOME: home, TABMUX_HEADLESS: '1', TABMUX_WORKERS: '1' };
/** A second profile whose questions time out soon (its daemon is started by its bridge, with this setting). */
const QUICK = 'quick';
const QUICK_TIMEOUT_MS = 3000;

function env(extra: Record<string, string> = {}): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      merged[key] = value;
    }
  }
  return { ...merged, ...ENV, ...extra };
}

const agents: McpServeAgent[] = [];

async function startAgent(name: string, args: string[] = [], extraEnv: Record<string, string> = {}): Promise<McpServeAgent> {
  // A person may take a while; the SDK's own default would give up after a minute.
  const agent = await startMcpServeAgent({ name, args, env: env(extraEnv), callTimeoutMs: 240_000 });
  agents.push(agent);
  return agent;
}

const cli = (...args: string[]): Promise<CliResult> => runCli(args, ENV);

async function cliJson<T>(...args: string[]): Promise<T> {
  const result = await cli(...args, '--json');
  expect(result.code, result.stderr + result.stdout).toBe(0);
  return JSON.parse(result.stdout) as T;
}

const requests = (): Promise<HumanRequest[]> => cliJson<HumanRequest[]>('requests');
const sessions = (): Promise<SessionInfo[]> => cliJson<SessionInfo[]>('session', 'list');

function requestFor(sessionId: string): Promise<HumanRequest> {
  return waitFor(async () => (await requests()).find((request) => request.sessionId === sessionId), `a request of ${sessionId}`, 60_000);
}

async function sessionLabelled(label: string): Promise<SessionInfo> {
  return waitFor(async () => (await sessions()).find((session) => session.label === label), `a session labelled ${label}`, 60_000);
}

describe('ask_human', () => {
  beforeAll(async () => {
    const started = await cli('daemon', 'start');
    expect(started.code, started.stderr).toBe(0);
    const added = await cli('profile', 'add', QUICK, '--headless');
    expect(added.code, added.stderr).toBe(0);
  });

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.client.close().catch(() => undefined)));
    await cli('daemon', 'stop', '--all');
    cleanup();
  });

  it('is listed to every agent, and a question answered from the CLI reaches the agent', async () => {
    const agent = await startAgent('asker');
    const { tools } = await agent.client.listTools();
    const tool = tools.find((candidate) => candidate.name === 'ask_human');
    expect(tool?.inputSchema.required).toEqual(['question']);
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['question', 'choices']);

    expect((await agent.call('navigate_page', { url: html('<p>Checkout</p>', 'Checkout') })).isError).toBe(false);
    const session = await sessionLabelled('asker');
    const asked = agent.call('ask_human', { question: 'Which card should I pay with?', choices: ['Visa', 'Amex'] });
    const request = await requestFor(session.id);
    expect(request).toMatchObject({ kind: 'question', tool: 'ask_human', label: 'asker', question: 'Which card should I pay with?', choices: ['Visa', 'Amex'] });
    expect(request.id).toMatch(/^req-[0-9a-f]{8}$/);
    expect(request.url).toMatch(/^data:text\/html/);

    // The session shows as waiting wherever a person looks: session list, pages, and their text forms.
    expect((await sessions()).find((each) => each.id === session.id)?.waitingForHuman).toMatchObject({ requestId: request.id, kind: 'question' });
    expect((await cliJson<TabInfo[]>('pages')).find((tab) => tab.owner === session.id)?.waitingForHuman).toBe(request.id);
    expect((await cli('session', 'list')).stdout).toContain(`${session.id} waits for you: ${request.id}`);
    expect((await cli('requests')).stdout).toContain('Which card should I pay with? [Visa / Amex]');

    const answered = await cli('answer', request.id, '--text', 'The Amex, please');
    expect(answered.code, answered.stderr).toBe(0);
    expect(await asked).toEqual({ text: 'The Amex, please', isError: false });
    expect((await sessions()).find((each) => each.id === session.id)?.waitingForHuman ?? null).toBeNull();
    expect(await requests()).toEqual([]);

    // An answer to a request that is gone says so, and why.
    const again = await cli('answer', request.id, '--text', 'too late', '--json');
    expect(again.code).toBe(1);
    const gone = JSON.parse(again.stdout) as { error: { code: string; message: string } };
    expect(gone.error.code).toBe('request_gone');
    expect(gone.error.message).toContain('was answered');
    const unknown = await cli('answer', 'req-00000000', '--text', 'hello');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no request req-00000000 waits');

    // The activity log has the question and who answered it.
    const log = await cliJson<ActivityEntry[]>('log', '--session', session.id);
    const entry = log.find((each) => each.tool === 'ask_human');
    expect(entry?.args).toMatchObject({ question: 'Which card should I pay with?', choices: ['Visa', 'Amex'] });
    expect(entry?.summary).toBe('answered from the cli: The Amex, please');
  });

  it('an agent whose client gives up after a few seconds without news still gets the answer: its bridge says the call still runs', async () => {
    const agent = await startAgent('patient');
    await agent.call('list_pages', {});
    const session = await sessionLabelled('patient');
    let told = 0;
    // As an SDK client that asks for progress and resets its own 12 s limit on it (the SDK's default limit is 60 s).
    const asked = agent.client.callTool({ name: 'ask_human', arguments: { question: 'Shall I sign in with the work account?' } }, undefined, {
      timeout: 12_000,
      resetTimeoutOnProgress: true,
      onprogress: () => {
        told++;
      },
    });
    const request = await requestFor(session.id);
    // The person answers after the client's own limit has passed since the call began.
    await new Promise((resolve) => setTimeout(resolve, 14_000));
    const answered = await cli('answer', request.id, '--text', 'Yes, the work one');
    expect(answered.code, answered.stderr).toBe(0);
    expect((await asked).content).toEqual([{ type: 'text', text: 'Yes, the work one' }]);
    expect(told).toBeGreaterThanOrEqual(1);
  });

  it('an empty question is an argument error, and nothing waits', async () => {
    const agent = await startAgent('empty-asker');
    const result = await agent.call('ask_human', { question: '  ' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('ask_human needs a question');
    expect(await requests()).toEqual([]);
  });

  it('a question the agent cancels leaves the list', async () => {
    const agent = await startAgent('canceller');
    expect((await agent.call('list_pages')).isError).toBe(false);
    const session = await sessionLabelled('canceller');
    const controller = new AbortController();
    const asked = agent.client.callTool({ name: 'ask_human', arguments: { question: 'Never mind?' } }, undefined, { signal: controller.signal, timeout: 240_000 });
    const request = await requestFor(session.id);
    controller.abort();
    await expect(asked).rejects.toThrow();
    await waitFor(async () => ((await requests()).some((each) => each.id === request.id) ? undefined : true), 'the cancelled question to leave the list', 60_000);
    const late = await cli('answer', request.id, '--text', 'too late');
    expect(late.stderr).toContain('the agent cancelled its call');
  });

  it('two sessions wait at once while another session, on the same worker, goes on', async () => {
    const first = await startAgent('first-asker');
    const second = await startAgent('second-asker');
    const worker = await startAgent('busy-agent');
    expect((await first.call('list_pages')).isError).toBe(false);
    expect((await second.call('list_pages')).isError).toBe(false);
    const [one, two] = [await sessionLabelled('first-asker'), await sessionLabelled('second-asker')];
    const firstAsked = first.call('ask_human', { question: 'First question?' });
    const secondAsked = second.call('ask_human', { question: 'Second question?' });
    const [oneRequest, twoRequest] = [await requestFor(one.id), await requestFor(two.id)];
    expect(oneRequest.id).not.toBe(twoRequest.id);

    // Nobody has answered: the single worker is free for another session's calls, and for the asker's own.
    expect((await worker.call('navigate_page', { url: html('<h1>Still working</h1>', 'Busy') })).isError).toBe(false);
    const snapshot = await worker.call('take_snapshot');
    expect(snapshot.isError).toBe(false);
    expect(snapshot.text).toContain('Still working');
    expect((await first.call('list_pages')).isError).toBe(false);
    expect((await requests()).map((request) => request.id).sort()).toEqual([oneRequest.id, twoRequest.id].sort());

    expect((await cli('answer', twoRequest.id, '--text', 'second answer')).code).toBe(0);
    expect(await secondAsked).toEqual({ text: 'second answer', isError: false });
    expect((await requests()).map((request) => request.id)).toEqual([oneRequest.id]);
    expect((await cli('answer', oneRequest.id, '--text', 'first answer')).code).toBe(0);
    expect(await firstAsked).toEqual({ text: 'first answer', isError: false });
  });

  it('a question pending when the daemon restarts is asked again by the daemon that comes back, in the same session', async () => {
    const agent = await startAgent('restarted-asker');
    expect((await agent.call('navigate_page', { url: html('<p>Login</p>', 'Login') })).isError).toBe(false);
    const session = await sessionLabelled('restarted-asker');
    const asked = agent.call('ask_human', { question: 'Please sign in for me' });
    const before = await requestFor(session.id);
    const restarted = await cli('daemon', 'restart');
    expect(restarted.code, restarted.stderr).toBe(0);
    // The bridge sends the question again (it changes nothing in the browser), so the person sees it again.
    const again = await waitFor(async () => (await requests()).find((request) => request.sessionId === session.id && request.id !== before.id), 'the question asked again', 60_000);
    expect(again).toMatchObject({ kind: 'question', question: 'Please sign in for me' });
    expect((await cli('answer', again.id, '--text', 'Signed in')).code).toBe(0);
    const result = await asked;
    expect(result.isError, `${result.text}\n${agent.log()}`).toBe(false);
    // The answer is the result as the person wrote it; the note that the daemon restarted comes with the next call.
    expect(result.text).toBe('Signed in');
    const next = await agent.call('list_pages');
    expect(next.text).toMatch(/daemon restarted/);
    expect(next.text).toContain('Login');
  });

  it("a question nobody answers fails, and a held call nobody decides on is denied, once the profile's timeouts pass", async () => {
    const agent = await startAgent('patient', ['--profile', QUICK], { TABMUX_QUESTION_TIMEOUT_MS: String(QUICK_TIMEOUT_MS), TABMUX_CONFIRM_TIMEOUT_MS: String(QUICK_TIMEOUT_MS) });
    const result = await agent.call('ask_human', { question: 'Anyone there?' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('nobody answered your question within 3 s');
    expect(await cliJson<HumanRequest[]>('requests', '--profile', QUICK)).toEqual([]);

    // A call a confirm policy holds that nobody decides on is denied once the confirm timeout passes.
    const added = await cli('policy', 'add', '--profile', QUICK, '--tool', 'list_pages', '--url', '*', '--action', 'confirm');
    expect(added.code, added.stderr).toBe(0);
    const held = await agent.call('list_pages');
    expect(held.isError).toBe(true);
    expect(held.text).toContain("waited for a person's approval");
    expect(held.text).toContain('nobody gave it, so it was not run');
    expect(await cliJson<HumanRequest[]>('requests', '--profile', QUICK)).toEqual([]);
  });
});
