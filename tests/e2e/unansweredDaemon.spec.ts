import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { runCli } from '../helpers/runCli.js';
import { startDashboard } from './dashboardFixture.js';

/** The daemon's pid, as `daemon status --json` tells it. */
async function daemonPid(env: Record<string, string>): Promise<number> {
  const status = await runCli(['daemon', 'status', '--json'], env);
  expect(status.code, status.stderr).toBe(0);
  const pid: unknown = (JSON.parse(status.stdout) as { pid?: unknown }).pid;
  expect(typeof pid).toBe('number');
  return pid as number;
}

/** Continues a process this spec stopped, unless it is gone already. */
function resume(pid: number): void {
  if (isProcessAlive(pid)) {
    process.kill(pid, 'SIGCONT');
  }
}

/**
 * A daemon whose process is stopped (SIGSTOP, as a suspended job or a debugger leaves it) takes connections and says
 * nothing. The dashboard tells a person so, whether the daemon stopped before the dashboard opened or while it watched,
 * and its Stop ends that daemon.
 */
test('a daemon that does not answer is shown as such, and Stop ends it', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const home = mkdtempSync(join(tmpdir(), 'tmx-e2e-stuck-'));
  const env = { TABMUX_HOME: home, TABMUX_HEADLESS: '1' };
  const snap = async (name: string): Promise<void> => {
    const path = testInfo.outputPath(`${name}.png`);
    await page.screenshot({ path, fullPage: true });
    await testInfo.attach(name, { path, contentType: 'image/png' });
  };
  const stopped: number[] = [];
  let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;
  try {
    const started = await runCli(['daemon', 'start'], env);
    expect(started.code, started.stderr).toBe(0);
    const first = await daemonPid(env);
    process.kill(first, 'SIGSTOP');
    stopped.push(first);

    // Stopped before the dashboard opened: its look gets no answer.
    dashboard = await startDashboard(env);
    await page.goto(dashboard.url);
    const badge = page.getByTestId('profile-state-default');
    await expect(badge).toHaveText('not answering', { timeout: 40_000 });
    await expect(badge).toHaveAttribute('data-state', 'unanswered');
    await expect(page.getByTestId('profile-unanswered')).toBeVisible();
    await expect(page.getByTestId('profile-error')).toHaveText(`the daemon (pid ${first}) does not answer: its process is stopped or stuck; Stop ends it`);
    await expect(page.getByTestId('profile-start-default')).toHaveCount(0);
    await snap('unanswered-before-open');

    await page.getByTestId('profile-stop-main').click();
    await expect(badge).toHaveText('stopped', { timeout: 60_000 });
    await expect(page.getByTestId('profile-stopped')).toBeVisible();
    // Continued and sent SIGTERM, it stopped as when asked, its Chrome answering: the pane says how it went.
    await expect(page.getByTestId('profile-error')).toHaveText('stopped profile default (by SIGTERM: it could not be asked over its socket)');
    await snap('stopped-by-sigterm');
    // A zombie left for a parent that never reaps it counts as gone.
    expect(isProcessAlive(first)).toBe(false);
    expect((await runCli(['daemon', 'status'], env)).code).toBe(3);

    // Started again, then stopped while the dashboard watches: its panels stay, marked as from before.
    await page.getByTestId('profile-start-main').click();
    await expect(badge).toHaveText('ready', { timeout: 60_000 });
    // Started again, the note of the forced stop is gone.
    await expect(page.getByTestId('profile-error')).toHaveCount(0);
    const second = await daemonPid(env);
    process.kill(second, 'SIGSTOP');
    stopped.push(second);
    await expect(badge).toHaveText('not answering', { timeout: 40_000 });
    await expect(page.getByTestId('profile-unanswered-note')).toContainText(`the daemon (pid ${second}) does not answer`);
    await expect(page.getByTestId('sessions-empty')).toBeVisible();
    await snap('unanswered-while-watched');
    process.kill(second, 'SIGCONT');
    await expect(badge).toHaveText('ready', { timeout: 40_000 });
    await expect(page.getByTestId('profile-unanswered-note')).toHaveCount(0);
  } finally {
    stopped.forEach(resume);
    dashboard?.child.kill('SIGTERM');
    await runCli(['daemon', 'stop'], env);
    rmSync(home, { recursive: true, force: true });
  }
});
