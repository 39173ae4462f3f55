import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { packageRoot } from '../../electron/core/platform/version.js';
import { runCli } from '../helpers/runCli.js';

/** The Electron binary on disk; require('electron') is avoided because it downloads a missing binary. */
function electronBinary(): { path: string } | { skip: string } {
  const dir = join(packageRoot(), 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) {
    return { skip: 'the Electron binary is not installed (node_modules/electron/path.txt is missing; run node node_modules/electron/install.js)' };
  }
  const path = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(path)) {
    return { skip: `the Electron binary is missing at ${path}` };
  }
  if (process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY']) {
    return { skip: 'no display is available for Electron (DISPLAY and WAYLAND_DISPLAY are unset)' };
  }
  return { path };
}

// Playwright reads a test's fixtures from its destructuring pattern; this one uses none.
// eslint-disable-next-line no-empty-pattern
test('the tray app lists a profile in its tray menu and window, and starts it', async ({}, testInfo) => {
  const binary = electronBinary();
  if ('skip' in binary) {
    console.log(`skipping the Electron spec: ${binary.skip}`);
    test.skip(true, binary.skip);
    return;
  }
  const home = mkdtempSync(join(tmpdir(), 'tmx-app-'));
  const env = { TABMUX_HOME: home, TABMUX_HEADLESS: '1' };
  // A browser of the user's own, never started here: the menu says whether it is connected, not whether it runs.
  const added = await runCli(['profile', 'add', 'mine', '--browser-url', 'http://127.0.0.1:9'], env);
  expect(added.code, added.stderr).toBe(0);
  const app = await electron.launch({
    executablePath: binary.path,
    args: [join(packageRoot(), 'dist', 'electron-app', 'main.cjs'), '--no-sandbox'],
    env: { ...process.env, ...env, TABMUX_EXPOSE_TRAY_LABELS: '1' },
  });
  try {
    const window = await app.firstWindow();
    await expect(window.getByTestId('profile-item-default')).toHaveAttribute('data-state', 'stopped');
    const hasBridge = await window.evaluate(() => typeof Reflect.get(window, 'tabmux'));
    expect(hasBridge).toBe('object');
    const trayLabels = async (): Promise<unknown> => app.evaluate((): unknown => Reflect.get(globalThis, 'tabmuxTrayLabels'));
    await expect.poll(trayLabels).toContain('default: stopped');
    await expect.poll(trayLabels).toContain('mine: disconnected');
    await expect(window.getByTestId('profile-item-mine')).toHaveAttribute('data-kind', 'external');
    await expect(window.getByTestId('profile-connect-mine')).toBeVisible();

    await window.getByTestId('profile-start-default').click();
    await expect(window.getByTestId('profile-item-default')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
    await expect.poll(trayLabels).toContain('default: running');
    const path = testInfo.outputPath('electron-window.png');
    await window.screenshot({ path });
    await testInfo.attach('electron-window', { path, contentType: 'image/png' });
  } finally {
    await app.close();
    await runCli(['daemon', 'stop'], env);
    rmSync(home, { recursive: true, force: true });
  }
});
