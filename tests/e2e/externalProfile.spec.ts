import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { runCli } from '../helpers/runCli.js';
import { freePort, startUserChromium } from '../helpers/userChromium.js';
import { startDashboard } from './dashboardFixture.js';

/**
 * A browser of the user's own in the dashboard: a Chromium this spec starts with --remote-debugging-port is added
 * through the UI by URL, connected and disconnected there, and is still running afterwards.
 */
test('a browser of your own is added by URL, connected and disconnected, and keeps running', async ({ page }, testInfo) => {
  const home = mkdtempSync(join(tmpdir(), 'tmx-e2e-ext-'));
  const env = { TABMUX_HOME: home };
  const chromium = await startUserChromium();
  const dashboard = await startDashboard(env).catch((error: unknown) => {
    chromium.stop();
    throw error;
  });
  const snap = async (name: string): Promise<void> => {
    const path = testInfo.outputPath(`${name}.png`);
    await page.screenshot({ path, fullPage: true });
    await testInfo.attach(name, { path, contentType: 'image/png' });
  };
  try {
    await page.goto(dashboard.url);
    await expect(page.getByTestId('profile-item-default')).toHaveAttribute('data-kind', 'launched');

    await page.getByTestId('add-profile-button').click();
    await page.getByTestId('add-profile-name').fill('mine');
    await page.getByTestId('add-profile-url').fill('localhost:9222');
    await page.getByTestId('add-profile-submit').click();
    await expect(page.getByTestId('add-profile-error')).toContainText('must be an http(s) URL');
    await page.getByTestId('add-profile-url').fill(chromium.url);
    await expect(page.getByTestId('add-profile-error')).toHaveCount(0);
    await page.getByTestId('add-profile-submit').click();
    await expect(page.getByTestId('add-profile-form')).toHaveCount(0);

    const item = page.getByTestId('profile-item-mine');
    await expect(item).toHaveAttribute('data-kind', 'external');
    await expect(page.getByTestId('profile-kind-mine')).toHaveText('external');
    await expect(page.getByTestId('profile-endpoint-mine')).toHaveText(chromium.url);
    await expect(page.getByTestId('profile-state-mine')).toHaveText('disconnected');
    await expect(page.getByTestId('profile-pane-mine')).toBeVisible();
    await expect(page.getByTestId('profile-disconnected')).toBeVisible();
    await expect(page.getByTestId('fact-endpoint')).toContainText(chromium.url);
    // The same store as the CLI: `profile list` sees what the UI added.
    const listed = await runCli(['profile', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(chromium.url);

    await page.getByTestId('add-profile-button').click();
    await page.getByTestId('add-profile-name').fill('mine');
    await page.getByTestId('add-profile-submit').click();
    await expect(page.getByTestId('add-profile-error')).toContainText('already exists');
    await snap('external-add-refused');
    await page.getByTestId('add-profile-cancel').click();

    await expect(page.getByTestId('profile-start-mine')).toHaveCount(0);
    await page.getByTestId('profile-connect-mine').click();
    await expect(page.getByTestId('profile-state-mine')).toHaveText('connected');
    await expect(page.getByTestId('profile-state-mine')).toHaveAttribute('data-state', 'connected');
    await expect(page.getByTestId('fact-connection')).toContainText('connected');
    await expect(page.getByTestId('profile-restart')).toHaveText('Reconnect');
    await expect(page.getByTestId('sessions-empty')).toBeVisible();
    await snap('external-connected');

    const disconnect = page.getByTestId('profile-disconnect-mine');
    await expect(disconnect).toHaveText('Disconnect');
    await disconnect.click();
    await expect(disconnect).toHaveText('Disconnect?');
    await disconnect.click();
    await expect(page.getByTestId('profile-state-mine')).toHaveText('disconnected');
    await expect(page.getByTestId('profile-connect-mine')).toBeVisible();
    expect(await chromium.answers()).toBe(true);
    await snap('external-disconnected');
  } finally {
    dashboard.child.kill('SIGTERM');
    await runCli(['daemon', 'stop', '--profile', 'mine'], env);
    chromium.stop();
    rmSync(home, { recursive: true, force: true });
  }
});

test('connecting to a browser that is not there fails with the reason, and says how to fix it', async ({ page }, testInfo) => {
  const home = mkdtempSync(join(tmpdir(), 'tmx-e2e-ext-'));
  const env = { TABMUX_HOME: home };
  const url = `http://127.0.0.1:${await freePort()}`;
  const dashboard = await startDashboard(env);
  try {
    await page.goto(dashboard.url);
    await page.getByTestId('add-profile-button').click();
    await page.getByTestId('add-profile-name').fill('gone');
    await page.getByTestId('add-profile-url').fill(url);
    await page.getByTestId('add-profile-submit').click();
    await page.getByTestId('profile-connect-gone').click();
    await expect(page.getByTestId('profile-state-gone')).toHaveText('failed');
    await expect(page.getByTestId('connection-error')).toContainText('not reachable');
    await expect(page.getByTestId('profile-connect-failed')).toContainText('--remote-debugging-port');
    await expect(page.getByTestId('profile-connect-main')).toHaveText('Connect again');
    await expect(page.getByTestId('toast')).toContainText('Could not connect gone');
    const path = testInfo.outputPath('external-failed.png');
    await page.screenshot({ path, fullPage: true });
    await testInfo.attach('external-failed', { path, contentType: 'image/png' });
  } finally {
    dashboard.child.kill('SIGTERM');
    await runCli(['daemon', 'stop', '--profile', 'gone'], env);
    rmSync(home, { recursive: true, force: true });
  }
});
