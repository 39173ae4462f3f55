import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Daemon } from '../../electron/core/daemon/Daemon.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { isProcessAlive } from '../../electron/core/process/processes.js';
import { PreparedUpstream, UpstreamClient } from '../../electron/core/upstream/UpstreamClient.js';
import { runningChildren } from '../helpers/childProcesses.js';
import { makeTestHome } from '../helpers/testHome.js';
import { startUserChromium, type UserChromium } from '../helpers/userChromium.js';
import { waitFor } from '../helpers/waitFor.js';
import { textOf } from '../../shared/toolResult.js';

/**
 * A daemon starts its first worker while its Chrome launches: the process loads upstream first and is given its
 * command line (the browser's address) once Chrome is up. Against a real Chromium and the real chrome-devtools-mcp.
 */

const logger = Logger.silent();
let chromium: UserChromium;
const scratch = mkdtempSync(join(tmpdir(), 'tmx-prep-'));

/** Node processes started by this test process that still run the launcher and were never given a command. */
function waitingLaunchers(): number[] {
  return runningChildren((command) => command.includes('upstreamLauncher.js'));
}

describe('a worker started ahead of its browser', () => {
  beforeAll(async () => {
    chromium = await startUserChromium();
  });

  afterAll(() => {
    chromium.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('runs upstream in the same process once given its command line, and drives the browser', async () => {
    const tempDir = join(scratch, 'fits');
    const prepared = PreparedUpstream.start({ tempDir }, logger);
    const pid = await prepared.pid();
    expect(pid).not.toBeNull();
    const upstream = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: chromium.url }, logger, tempDir }, prepared);
    try {
      expect(upstream.pid).toBe(pid);
      expect((await upstream.listTools()).map((tool) => tool.name)).toContain('list_pages');
      const pages = await upstream.callTool('list_pages', {});
      expect(pages.isError).not.toBe(true);
      expect(textOf(pages)).toContain('## Pages');
    } finally {
      await upstream.close();
    }
  });

  it('is stopped, and a new worker spawned, when it was made for another temp folder', async () => {
    const prepared = PreparedUpstream.start({ tempDir: join(scratch, 'made-for') }, logger);
    const pid = await prepared.pid();
    expect(pid).not.toBeNull();
    const upstream = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: chromium.url }, logger, tempDir: join(scratch, 'asked-for') }, prepared);
    try {
      expect(upstream.pid).not.toBe(pid);
      expect(pid !== null && isProcessAlive(pid)).toBe(false);
      expect((await upstream.callTool('list_pages', {})).isError).not.toBe(true);
    } finally {
      await upstream.close();
    }
  });

  it('exits when closed without a command line', async () => {
    const prepared = PreparedUpstream.start({ tempDir: join(scratch, 'unused') }, logger);
    const pid = await prepared.pid();
    expect(pid).not.toBeNull();
    const started = Date.now();
    await prepared.close();
    expect(pid !== null && isProcessAlive(pid)).toBe(false);
    // It leaves on its own when its command pipe closes; the close sequence's SIGTERM comes only after 2 s.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('is not left behind by a daemon whose Chrome cannot start', async () => {
    const { paths, cleanup } = makeTestHome();
    try {
      const failed = await Daemon.start({ paths, profile: { name: 'default', config: { headless: true, chrome: join(scratch, 'no-such-chrome') } }, logger, headless: true }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(Error);
      await waitFor(() => (waitingLaunchers().length === 0 ? true : undefined), 'no launcher left waiting', 5_000);
    } finally {
      cleanup();
    }
  });
});
