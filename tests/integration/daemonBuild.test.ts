import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEntryPoint, packageRoot } from '../../electron/core/platform/version.js';
import { builtinsLoaded, MODULE_LOG, modulesLoaded } from '../helpers/moduleLogFile.js';
import { makeTestHome } from '../helpers/testHome.js';
import { readyDaemon } from '../helpers/readyDaemon.js';

/**
 * `tabmux daemon run` as installed: the `tabmux` command (tabmux.cjs) hands it to its own build before loading
 * anything else, so a daemon holds the daemon's code and none of the CLI's command table. Real Chromium and
 * chrome-devtools-mcp.
 */

const BIN = join(packageRoot(), 'dist', 'electron', 'bin');
const { home, paths, env, cleanup } = makeTestHome();

afterAll(() => cleanup());

describe('the daemon build', () => {
  it('serves from tabmux.cjs and daemon.cjs alone, without the rest of the CLI', async () => {
    const log = join(home, 'modules.log');
    const child = spawn(process.execPath, ['--import', MODULE_LOG, cliEntryPoint(), 'daemon', 'run', '--headless'], {
      env: { ...process.env, ...env, TABMUX_TEST_MODULE_LOG: log },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const client = await readyDaemon(paths);
      // A first session and call, so whatever the daemon loads lazily on the way is in the log too.
      const session = await client.createSession('build-check');
      await client.bindSession(session.id);
      expect(JSON.stringify(await client.request('tools/call', { name: 'list_pages', arguments: {} }))).toMatch(/Pages/);
      client.close();

      const loaded = (await modulesLoaded(log))
        .filter((url) => url.startsWith(`file://${BIN}/`))
        .map((url) => url.slice(`file://${BIN}/`.length));
      expect(loaded.sort()).toEqual(['daemon.cjs', 'tabmux.cjs']);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    // Its CDP connections are ws:// to the local Chrome without compression: Node's TLS, HTTPS and zlib stay unloaded
    // (a wss:// engine loads them when first used; remoteEngine.test.ts).
    const builtins = await builtinsLoaded(log);
    expect(builtins).toContain('net');
    expect(builtins.filter((name) => ['tls', '_tls_wrap', 'https', 'zlib'].includes(name))).toEqual([]);
  });
});
