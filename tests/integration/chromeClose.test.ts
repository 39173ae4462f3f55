import { existsSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChromeProcess } from '../../electron/core/browser/ChromeProcess.js';
import { openCdpConnection } from '../../electron/core/browser/CdpConnection.js';
import { findChrome } from '../../electron/core/browser/findChrome.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { withDeadline } from '../../shared/withDeadline.js';
import { makeTestHome } from '../helpers/testHome.js';
import { waitUntil } from '../helpers/waitFor.js';

/**
 * Closing a Chrome that answers nothing (stopped, as a hung browser is) with a real Chromium: the close asks it on
 * CDP, gives up on the answer, and kills it once the grace is over, counted from the start; it does not first wait out
 * the CDP request's own 30 s limit, which made a daemon whose browser hung take 40 s to stop.
 */

const { home, cleanup } = makeTestHome();
const stopped: number[] = [];

afterAll(() => {
  for (const pid of stopped) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  cleanup();
});

/** A Chrome on a user-data-dir of its own under the test's home, and the temp folder its singleton socket is in. */
async function launchWithFolder(name: string): Promise<{ chrome: ChromeProcess; folder: string }> {
  const userDataDir = `${home}/${name}`;
  const chrome = await ChromeProcess.launch({ executable: findChrome(undefined), userDataDir, headless: true, extraArgs: [], logger: Logger.silent() });
  stopped.push(chrome.pid);
  const folder = dirname(readlinkSync(`${userDataDir}/SingletonSocket`));
  expect(existsSync(folder)).toBe(true);
  return { chrome, folder };
}

describe('closing Chrome', () => {
  it('kills a Chrome that answers nothing once the grace is over, without waiting for its CDP answer first', async () => {
    const chrome = await ChromeProcess.launch({ executable: findChrome(undefined), userDataDir: `${home}/chrome`, headless: true, extraArgs: [], logger: Logger.silent() });
    const version = (await (await fetch(`${chrome.browserUrl}/json/version`)).json()) as { webSocketDebuggerUrl: string };
    const connection = await openCdpConnection(version.webSocketDebuggerUrl);
    try {
      // The connection works before the browser hangs.
      expect(await connection.send('Browser.getVersion')).toHaveProperty('product');
      process.kill(chrome.pid, 'SIGSTOP');
      stopped.push(chrome.pid);
      // A 2 s grace: the close must end well within the CDP request's own 30 s limit.
      const closed = await withDeadline(chrome.close(connection, 2000).then(() => 'closed' as const), 15_000, 'still waiting' as const);
      expect(closed).toBe('closed');
      expect(isProcessAlive(chrome.pid)).toBe(false);
      expect(chrome.running).toBe(false);
    } finally {
      connection.dispose();
    }
  }, 60_000);

  it('leaves no temp folder behind when Chrome is killed (its singleton socket\'s, which only a clean exit removes)', async () => {
    const { chrome, folder } = await launchWithFolder('killed');
    process.kill(chrome.pid, 'SIGKILL');
    await chrome.exited;
    await waitUntil(() => !existsSync(folder), `Chrome's singleton folder ${folder} to be removed`, 5_000);
  }, 60_000);

  it('has removed that folder by the time a close returns, also when Chrome was closed by SIGTERM (which leaves it)', async () => {
    const { chrome, folder } = await launchWithFolder('terminated');
    // No CDP connection: the close sends SIGTERM, on which Chrome exits cleanly (code 0) but leaves the folder.
    await chrome.close();
    expect(await chrome.exited).toEqual({ code: 0, signal: null });
    // Gone already: a daemon that exits right after closing its Chrome leaves nothing behind.
    expect(existsSync(folder)).toBe(false);
  }, 60_000);
});
