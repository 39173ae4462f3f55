import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { runCli } from '../helpers/runCli.js';
import { startAgentOn, startDashboard } from './dashboardFixture.js';

/**
 * A Chrome whose own process stops answering (paused here with SIGSTOP, as a page flooding it would hold it) holds
 * every call of the profile. The dashboard tells a person so while a call waits on it, the agent's call that runs out
 * of time says why, and the notice goes once Chrome answers again.
 */
test('a browser that does not answer is shown on its profile, and the notice goes once it answers', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const home = mkdtempSync(join(tmpdir(), 'tmx-e2e-silent-'));
  // The daemon `daemon start` spawns takes its settings from this environment.
  const env = { TABMUX_HOME: home, TABMUX_HEADLESS: '1', TABMUX_CALL_TIMEOUT_MS: '10000' };
  let chromePid: number | undefined;
  let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;
  try {
    const { session, chrome } = await startAgentOn(env, 'data:text/html,<h1>Waiting</h1>');
    chromePid = chrome.pid;

    dashboard = await startDashboard(env);
    await page.goto(dashboard.url);
    await expect(page.getByTestId('profile-state-default')).toHaveText('ready', { timeout: 40_000 });
    await expect(page.getByTestId('browser-silent-note')).toHaveCount(0);

    process.kill(chromePid, 'SIGSTOP');
    const call = runCli(['mcp', 'call', '--session', session, 'take_snapshot'], env);
    const note = page.getByTestId('browser-silent-note');
    await expect(note).toBeVisible({ timeout: 30_000 });
    await expect(note).toContainText('The browser is not answering');
    await expect(note).toContainText('every call on this profile waits on it');
    // The profile's badge, in the list of profiles and over its page, says so too.
    await expect(page.getByTestId('profile-state-default')).toHaveText('browser not answering');
    await expect(page.getByTestId('profile-header-state')).toHaveText('browser not answering');
    const path = testInfo.outputPath('browser-not-answering.png');
    await page.screenshot({ path, fullPage: true });
    await testInfo.attach('browser-not-answering', { path, contentType: 'image/png' });
    const answered = await call;
    expect(answered.code).not.toBe(0);
    expect(answered.stderr).toContain('The browser itself has not answered tabmux for');

    process.kill(chromePid, 'SIGCONT');
    await expect(note).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByTestId('profile-state-default')).toHaveText('ready');
    const again = await runCli(['mcp', 'call', '--session', session, 'take_snapshot'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Waiting');
  } finally {
    if (chromePid !== undefined && isProcessAlive(chromePid)) {
      process.kill(chromePid, 'SIGCONT');
    }
    dashboard?.child.kill('SIGTERM');
    await runCli(['daemon', 'stop'], env);
    rmSync(home, { recursive: true, force: true });
  }
});
