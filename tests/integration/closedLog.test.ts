import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../electron/core/platform/version.js';
import { makeTestHome } from '../helpers/testHome.js';
import { readyDaemon } from '../helpers/readyDaemon.js';

/**
 * A daemon run in the foreground whose log output goes away (`tabmux daemon run | head`, a closed terminal) keeps
 * serving without its log. Real Chromium and chrome-devtools-mcp.
 */

const CLI = join(packageRoot(), 'dist', 'electron', 'bin', 'tabmux.js');
const { paths, env, cleanup } = makeTestHome();

afterAll(() => cleanup());

describe('a daemon whose stderr is closed', () => {
  it('starts, serves a call and stops cleanly', async () => {
    const child = spawn(process.execPath, [CLI, 'daemon', 'run', '--headless'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    // The reading end goes away before the daemon writes its first line: every line after fails with EPIPE.
    child.stderr.destroy();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const client = await readyDaemon(paths);
      const session = await client.createSession('no-log');
      await client.bindSession(session.id);
      expect(JSON.stringify(await client.request('tools/call', { name: 'list_pages', arguments: {} }))).toMatch(/Pages/);
      client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
