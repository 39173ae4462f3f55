import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileLogFile, socketPath } from '../../electron/core/platform/paths.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import type { DaemonStatus } from '../../shared/model.js';
import { startBrowserless, type BrowserlessServer } from '../helpers/browserless.js';
import { cliDriver } from '../helpers/cliDriver.js';
import { bindSession, type BoundSession } from '../helpers/daemonFixture.js';
import { makeTestHome } from '../helpers/testHome.js';

/**
 * A profile on a remote engine (`--ws-endpoint`): a real browserless server on loopback, which starts a new browser
 * for every WebSocket connection. Its token reaches tabmux only as `${VAR}` in the daemon's environment. Checks that
 * every connection of the profile lands in one browser (so logins are shared between workers), that the token shows
 * up nowhere (files under the tabmux home, status, log, the workers' command lines), and that a full engine gives a
 * clear "busy" error instead of a hang.
 */

const { home, paths, cleanup } = makeTestHome();
const { tabmux, ok } = cliDriver(home);
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const clients: DaemonClient[] = [];
let engine: BrowserlessServer;
let site: Server;
let siteUrl: string;

/** Every file under a folder, recursively (sockets and other special files skipped). */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      return filesUnder(path);
    }
    return entry.isFile() ? [path] : [];
  });
}

async function session(profile: string, label: string): Promise<BoundSession> {
  const client = await DaemonClient.connect(socketPath(paths, profile), 'test');
  clients.push(client);
  const info = await client.call('tabmux/session.create', { label });
  await client.call('tabmux/session.bind', { session: info.id });
  return bindSession(client, info.id);
}

async function status(profile: string): Promise<{ parsed: DaemonStatus; raw: string }> {
  const raw = await ok(['daemon', 'status', '--profile', profile, '--json']);
  return { parsed: JSON.parse(raw) as DaemonStatus, raw };
}

beforeAll(async () => {
  engine = await startBrowserless(TOKEN);
  // A site both sessions visit: the cookie one sets must be seen by the other.
  site = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>site ${request.url ?? ''}</title><p>site</p>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const address = site.address();
  if (address === null || typeof address === 'string') {
    throw new Error('no site port');
  }
  siteUrl = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  for (const client of clients) {
    client.close();
  }
  await tabmux(['daemon', 'stop', '--profile', 'remote']);
  await tabmux(['daemon', 'stop', '--profile', 'full']);
  await tabmux(['daemon', 'stop', '--profile', 'secure']);
  await engine.stop();
  await new Promise<void>((resolve) => site.close(() => resolve()));
  cleanup();
});

describe('a profile on a remote engine (--ws-endpoint)', () => {
  it('is added with the token as a ${VAR} reference, which the config keeps as written', async () => {
    const refused = await tabmux(['profile', 'add', 'bad', '--ws-endpoint', engine.httpUrl]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--ws-endpoint must be a ws:\/\/ or wss:\/\/ URL/);
    const headerless = await tabmux(['profile', 'add', 'bad', '--browser-url', engine.httpUrl, '--ws-header', 'X-A: b']);
    expect(headerless.stderr).toMatch(/--ws-header goes with --ws-endpoint/);

    const endpoint = `ws://127.0.0.1:${engine.port}/chromium?token=\${ENGINE_TOKEN}`;
    await ok(['profile', 'add', 'remote', '--ws-endpoint', endpoint, '--ws-header', 'X-Client: ${ENGINE_CLIENT}', '--workers', '2']);
    const config = readFileSync(join(home, 'config', 'profiles.json'), 'utf8');
    expect(config).toContain('${ENGINE_TOKEN}');
  });

  it('puts every worker in the one browser the engine started, so a login on one is seen on the other', async () => {
    await ok(['daemon', 'start', '--profile', 'remote'], { ENGINE_TOKEN: TOKEN, ENGINE_CLIENT: 'tabmux-test-client' });
    const first = await session('remote', 'first');
    const second = await session('remote', 'second');
    const { parsed } = await status('remote');
    const workers = new Set(parsed.sessions.filter((row) => row.id === first.id || row.id === second.id).map((row) => row.worker));
    expect(workers.size).toBe(2);

    await first.text('new_page', { url: `${siteUrl}/one` });
    await first.text('evaluate_script', { function: '() => { document.cookie = "login=alice; path=/"; return document.cookie; }' });
    await second.text('new_page', { url: `${siteUrl}/two` });
    expect(await second.text('evaluate_script', { function: '() => document.cookie' })).toContain('login=alice');

    // The engine agrees: one browser holds both sessions' tabs.
    const rows = await engine.sessions();
    expect(new Set(rows.map((row) => row.browserId)).size).toBe(1);
    expect(rows.filter((row) => row.type === 'page').length).toBeGreaterThanOrEqual(2);
  });

  it('shows the endpoint with the reference, and the token is in no file, status, log or worker command line', async () => {
    const { parsed, raw } = await status('remote');
    expect(parsed.browser).toMatchObject({ kind: 'external', state: 'connected', endpoint: `ws://127.0.0.1:${engine.port}/chromium?token=\${ENGINE_TOKEN} (headers: X-Client)` });
    expect(raw).not.toContain(TOKEN);
    expect(await ok(['daemon', 'status', '--profile', 'remote'])).not.toContain(TOKEN);
    expect(await ok(['profile', 'list', '--json'])).not.toContain(TOKEN);
    expect(readFileSync(profileLogFile(paths, 'remote'), 'utf8')).toContain('connected to the browser');
    for (const file of filesUnder(home)) {
      if (statSync(file).size < 64 * 1024 * 1024) {
        expect(readFileSync(file).includes(TOKEN), file).toBe(false);
      }
    }
    const workerPids = parsed.workers.map((worker) => worker.pid).filter((pid): pid is number => pid !== null);
    expect(workerPids.length).toBeGreaterThan(0);
    for (const pid of [parsed.pid, ...workerPids]) {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      expect(commandLine).not.toContain(TOKEN);
      expect(commandLine).not.toContain('tabmux-test-client');
    }
    for (const pid of workerPids) {
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain(TOKEN);
    }
  });

  it('says the engine is busy at once when it is full, and works once a slot frees', async () => {
    // Room for tabmux's connections (its own, a check that it reaches the same browser again, a worker's), all taken.
    const full = await startBrowserless(TOKEN, { CONCURRENT: '3', QUEUED: '0' });
    const holders: Browser[] = [];
    try {
      for (let slot = 0; slot < 3; slot++) {
        holders.push(await puppeteer.connect({ browserWSEndpoint: `ws://127.0.0.1:${full.port}/chromium?token=${TOKEN}` }));
      }
      await ok(['profile', 'add', 'full', '--ws-endpoint', `ws://127.0.0.1:${full.port}/chromium?token=\${ENGINE_TOKEN}`]);
      // The daemon connects when a call needs the browser: starting it asks nothing of the engine.
      await ok(['daemon', 'start', '--profile', 'full'], { ENGINE_TOKEN: TOKEN });
      expect((await status('full')).parsed.browser).toMatchObject({ kind: 'external', state: 'pending' });
      const id = (await ok(['session', 'create', '--profile', 'full'])).trim();
      const refused = await tabmux(['mcp', 'call', '--profile', 'full', '--session', id, 'list_pages']);
      expect(refused.code).not.toBe(0);
      expect(`${refused.stdout}${refused.stderr}`).toMatch(/is busy \(HTTP 429[^)]*\); retry in a moment/);
      expect(`${refused.stdout}${refused.stderr}`).not.toContain(TOKEN);
      // The daemon keeps retrying in the background (backoff from 0.5 s), and each retry is `connecting` while it
      // lasts, so the moment status is read may fall inside one: either way the browser is not connected, and the
      // status says why.
      const { browser } = (await status('full')).parsed;
      if (browser.kind !== 'external') {
        throw new Error(`expected an external browser, got ${browser.kind}`);
      }
      expect(['disconnected', 'connecting']).toContain(browser.state);
      expect(browser.lastError).toMatch(/is busy \(HTTP 429[^)]*\); retry in a moment/);

      for (const holder of holders.splice(0)) {
        await holder.disconnect();
      }
      const worked = await tabmux(['mcp', 'call', '--profile', 'full', '--session', id, 'list_pages']);
      expect(worked.code).toBe(0);
      expect(worked.stdout).toContain('## Pages');
      expect((await status('full')).parsed.browser).toMatchObject({ kind: 'external', state: 'connected' });
    } finally {
      for (const holder of holders) {
        await holder.disconnect();
      }
      await tabmux(['daemon', 'stop', '--profile', 'full']);
      await full.stop();
    }
  });

  it('reaches an engine over wss://, trusting the certificate authorities Node is given', async () => {
    // A certificate for 127.0.0.1, made for this run, and a TLS front that passes each connection on to the engine.
    const key = join(home, 'engine-key.pem');
    const cert = join(home, 'engine-cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {
      stdio: 'ignore',
    });
    const front = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (secure) => {
      const plain = connectTcp(engine.port, '127.0.0.1');
      secure.on('error', () => plain.destroy());
      plain.on('error', () => secure.destroy());
      secure.pipe(plain).pipe(secure);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const address = front.address();
    if (address === null || typeof address === 'string') {
      throw new Error('no TLS front port');
    }
    try {
      await ok(['profile', 'add', 'secure', '--ws-endpoint', `wss://127.0.0.1:${address.port}/chromium?token=\${ENGINE_TOKEN}`]);
      await ok(['daemon', 'start', '--profile', 'secure'], { ENGINE_TOKEN: TOKEN, NODE_EXTRA_CA_CERTS: cert });
      const secure = await session('secure', 'secure');
      await secure.text('new_page', { url: `${siteUrl}/secure` });
      expect(await secure.text('evaluate_script', { function: '() => document.title' })).toContain('site /secure');
      expect((await status('secure')).parsed.browser).toMatchObject({ kind: 'external', state: 'connected' });
    } finally {
      await tabmux(['daemon', 'stop', '--profile', 'secure']);
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
  });
});
