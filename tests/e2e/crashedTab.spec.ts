import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import WebSocket from 'ws';
import { runCli } from '../helpers/runCli.js';
import { startAgentOn, startDashboard } from './dashboardFixture.js';

/** Ends the renderer of the tab showing `url` as a crash would, over the test's own connection to Chrome. */
async function crashTab(port: number, url: string): Promise<void> {
  const tabs = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ url: string; webSocketDebuggerUrl: string }>;
  const tab = tabs.find((candidate) => candidate.url === url);
  if (!tab) {
    throw new Error(`no tab at ${url}`);
  }
  const socket = new WebSocket(tab.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  // The crashed page never answers this: the socket is closed once the command is on its way (a close follows it).
  await new Promise((resolve) => socket.send(JSON.stringify({ id: 1, method: 'Page.crash' }), resolve));
  socket.close();
}

/**
 * A session's tab whose renderer crashes shows so in the dashboard's list of tabs and in `tabmux pages`; the agent's
 * calls on it are refused at once with what to do, and once it loads the page again the mark goes.
 */
test("a session's crashed tab is marked in the dashboard and tabmux pages until it loads again", async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const home = mkdtempSync(join(tmpdir(), 'tmx-e2e-crashed-'));
  const env = { TABMUX_HOME: home, TABMUX_HEADLESS: '1' };
  const url = 'data:text/html,<title>Fragile</title><h1>Fragile</h1>';
  let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;
  try {
    const { session, chrome } = await startAgentOn(env, url);

    dashboard = await startDashboard(env);
    await page.goto(dashboard.url);
    await expect(page.getByTestId('profile-state-default')).toHaveText('ready', { timeout: 40_000 });
    await expect(page.locator('[data-testid^="tab-owner-"]', { hasText: 'agent' })).toBeVisible({ timeout: 20_000 });
    const badge = page.locator('[data-testid^="tab-crashed-"]');
    await expect(badge).toHaveCount(0);

    await crashTab(chrome.port, url);
    await expect(badge).toHaveText('crashed', { timeout: 20_000 });
    const path = testInfo.outputPath('crashed-tab.png');
    await page.screenshot({ path, fullPage: true });
    await testInfo.attach('crashed-tab', { path, contentType: 'image/png' });

    const pages = await runCli(['pages'], env);
    expect(pages.code, pages.stderr).toBe(0);
    expect(pages.stdout).toMatch(/page \d+ crashed \(crashed\): Chrome shows its crash page until the tab loads again/);
    const refused = await runCli(['mcp', 'call', '--session', session, 'take_snapshot'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('crashed: its renderer process crashed, and nothing on it can answer until it loads again');

    const reloaded = await runCli(['mcp', 'call', '--session', session, 'navigate_page', JSON.stringify({ type: 'reload' })], env);
    expect(reloaded.code, reloaded.stderr).toBe(0);
    await expect(badge).toHaveCount(0, { timeout: 20_000 });
    const again = await runCli(['mcp', 'call', '--session', session, 'take_snapshot'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Fragile');
  } finally {
    dashboard?.child.kill('SIGTERM');
    await runCli(['daemon', 'stop'], env);
    rmSync(home, { recursive: true, force: true });
  }
});
