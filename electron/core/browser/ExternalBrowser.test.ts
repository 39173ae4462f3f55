import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { Logger } from '../platform/Logger.js';
import { ExternalBrowser } from './ExternalBrowser.js';
import type { ExternalEndpoint } from './externalEndpoint.js';

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') {
    throw new Error('no port');
  }
  return address.port;
}

function browserAt(url: string, endpoint: ExternalEndpoint = { kind: 'browserUrl', url }, env: NodeJS.ProcessEnv = {}): { browser: ExternalBrowser; prepared: number[] } {
  const prepared: number[] = [];
  const browser = new ExternalBrowser({
    endpoint,
    env,
    logger: Logger.silent(),
    prepare: () => {
      prepared.push(1);
      return Promise.resolve();
    },
  });
  return { browser, prepared };
}

describe('ExternalBrowser', () => {
  it('is pending until something needs it', async () => {
    const { browser } = browserAt(`http://127.0.0.1:${await closedPort()}`);
    await browser.start();
    expect(browser.info()).toMatchObject({ kind: 'external', state: 'pending', lastError: null, attempts: 0, nextRetryAt: null });
    expect(browser.endpoint()).toBeUndefined();
    await browser.close();
  });

  it('fails fast with browser_unavailable when the browser is not there, and schedules a retry with backoff', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { browser, prepared } = browserAt(url);
    const states: string[] = [];
    browser.on('state', (state) => states.push(state));
    let failure: unknown;
    await browser.ready().catch((error: unknown) => {
      failure = error;
    });
    expect(TabmuxError.from(failure).code).toBe('browser_unavailable');
    expect(TabmuxError.from(failure).message).toContain(`the browser at ${url} is not reachable`);
    expect(states).toEqual(['connecting', 'disconnected']);
    const info = browser.info();
    expect(info).toMatchObject({ state: 'disconnected', attempts: 1 });
    expect(info.lastError).toContain('not reachable');
    expect(info.nextRetryAt).toEqual(expect.any(Number));

    // A call that needs it tries again at once, whatever the backoff says.
    await expect(browser.ready()).rejects.toThrow(/not reachable/);
    expect(browser.info().attempts).toBe(2);
    expect(prepared).toEqual([]);

    await browser.close();
    expect(browser.info()).toMatchObject({ state: 'disconnected', nextRetryAt: null });
    await expect(browser.ready()).rejects.toThrow(/stopping/);
  });

  it('shows its endpoint without credentials', async () => {
    const { browser } = browserAt('http://agent:s3cret@127.0.0.1:9/');
    expect(browser.info().endpoint).not.toContain('s3cret');
    await browser.close();
  });

  it('names a variable that is not set, and never shows a value that is', async () => {
    const port = await closedPort();
    const missing = browserAt('', { kind: 'wsEndpoint', url: `ws://127.0.0.1:${port}/chromium?token=\${ENGINE_TOKEN}`, headers: {} });
    const error = await missing.browser.ready().then(() => undefined, (thrown: unknown) => TabmuxError.from(thrown));
    expect(error?.code).toBe('browser_unavailable');
    expect(error?.message).toContain('${ENGINE_TOKEN}');
    expect(error?.message).toContain('not set');
    await missing.browser.close();

    const secret = 'tok-4f2a9c';
    const header = 'hdr-77e1b0';
    const { browser } = browserAt(
      '',
      { kind: 'wsEndpoint', url: `ws://127.0.0.1:${port}/chromium?token=\${ENGINE_TOKEN}&key=literal-k3y`, headers: { 'X-Auth': '${ENGINE_HEADER}' } },
      { ENGINE_TOKEN: secret, ENGINE_HEADER: header },
    );
    const failure = await browser.ready().then(() => undefined, (thrown: unknown) => TabmuxError.from(thrown));
    expect(failure?.code).toBe('browser_unavailable');
    const shown = JSON.stringify([failure?.message, browser.info()]);
    expect(shown).not.toContain(secret);
    expect(shown).not.toContain(header);
    expect(shown).not.toContain('literal-k3y');
    expect(browser.info().endpoint).toBe(`ws://127.0.0.1:${port}/chromium?token=\${ENGINE_TOKEN}&key=redacted (headers: X-Auth)`);
    await browser.close();
  });

  it('gives the workers an address without connecting: its own URL, or a loopback relay when it holds credentials', async () => {
    const port = await closedPort();
    const plain = browserAt(`http://127.0.0.1:${port}`);
    expect(await plain.browser.ensure()).toEqual({ kind: 'browserUrl', url: `http://127.0.0.1:${port}` });
    expect(plain.browser.info().state).toBe('pending');
    await plain.browser.close();

    const secret = 'tok-81c2d3';
    const remote = browserAt('', { kind: 'wsEndpoint', url: `ws://127.0.0.1:${port}/chromium?token=\${ENGINE_TOKEN}`, headers: {} }, { ENGINE_TOKEN: secret });
    const endpoint = await remote.browser.ensure();
    expect(endpoint).toMatchObject({ kind: 'wsEndpoint', hiddenEnv: ['ENGINE_TOKEN'] });
    expect(endpoint.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/relay\/[0-9a-f]+$/);
    expect(remote.browser.info().state).toBe('pending');
    await remote.browser.close();
  });
});
