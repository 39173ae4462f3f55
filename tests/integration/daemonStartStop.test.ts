import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemonFixture.js';

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/login') {
      // What a site does when a user logs in: a persistent cookie, written to disk by Chrome only now and then.
      response.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=logged-in; Max-Age=86400; Path=/' });
      response.end('<!doctype html><title>Logged in</title><p>welcome</p>');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>Home</title><p>home</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('daemon stop', () => {
  let t: TestDaemon | undefined;

  afterAll(async () => {
    await t?.stop();
  });

  it('keeps a cookie set just before the stop: Chrome is closed, not killed', async () => {
    t = await startTestDaemon({ workers: 1 });
    const before = await t.session('login');
    await before.text('new_page', { url: `${origin}/login` });
    expect(await before.text('evaluate_script', { function: '() => document.cookie' })).toContain('session=logged-in');

    // Stop at once, well within Chrome's 30 s cookie flush period, and start again on the same profile.
    t = await t.restart();
    const after = await t.session('back');
    await after.text('new_page', { url: `${origin}/home` });
    expect(await after.text('evaluate_script', { function: '() => document.cookie' })).toContain('session=logged-in');
  });
});
