import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../shared/toolResult.js';
import { startTestDaemon, type BoundSession, type TestDaemon } from '../helpers/daemonFixture.js';
import { waitFor } from '../helpers/waitFor.js';

/** Words of the DevTools endpoint's tab list; a page that shows them has read every tab's URL and id. */
const TAB_LIST = /webSocketDebuggerUrl|devtoolsFrontendUrl/;

interface DevToolsTarget {
  id: string;
  type: string;
  url: string;
}

let t: TestDaemon;
let server: Server;
let origin: string;
let port: number;

/** Hostile pages, each trying one way into the browser's DevTools endpoint. */
function hostilePage(path: string): { status: number; headers: Record<string, string>; body: string } {
  const list = `http://127.0.0.1:${port}/json/list`;
  const url = new URL(path, origin);
  switch (url.pathname) {
    case '/redirect':
      return { status: 302, headers: { location: list }, body: '' };
    case '/link':
      return { status: 200, headers: {}, body: `<title>link</title><a id="go" href="${list}">tabs</a>` };
    case '/fetch': {
      // Reads the list, and fires a request with a side effect (closing a tab) that needs no readable answer.
      const victim = url.searchParams.get('victim') ?? '';
      const script = `
        window.done = Promise.allSettled([
          fetch(${JSON.stringify(list)}).then((r) => r.text()),
          fetch(${JSON.stringify(`http://127.0.0.1:${port}/json/close/${victim}`)}, { mode: 'no-cors' }),
        ]).then(([read, close]) => ({ read: read.status === 'fulfilled' ? read.value : 'failed', close: close.status }));`;
      return { status: 200, headers: {}, body: `<title>fetch</title><script>${script}</script>` };
    }
    default:
      return { status: 404, headers: {}, body: 'not found' };
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const page = hostilePage(request.url ?? '/');
    response.writeHead(page.status, { 'content-type': 'text/html', ...page.headers });
    response.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestDaemon({ workers: 1 });
  const control = await t.connect();
  const chromePort = (await control.call('tabmux/status')).chrome.port;
  if (chromePort === null) {
    throw new Error('the daemon reports no DevTools port');
  }
  port = chromePort;
});

afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => server.close(resolve));
});

/** The tabs as the DevTools endpoint lists them, asked from this process (outside every tab). */
async function devToolsTargets(): Promise<DevToolsTarget[]> {
  return (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as DevToolsTarget[];
}

async function bodyText(s: BoundSession): Promise<string> {
  return s.text('evaluate_script', { function: '() => `${location.href}\\n${document.body?.innerText ?? ""}`' });
}

async function expectRefused(s: BoundSession, tool: string, url: string): Promise<void> {
  const result = await s.call(tool, { url });
  expect(result.isError).toBe(true);
  expect(result._meta?.['tabmux/error']).toBe('url_denied');
  expect(textOf(result)).toMatch(/out of reach for agents/);
}

describe("the browser's control surface", () => {
  it('refuses an agent navigating to the DevTools endpoint, its own files, chrome://inspect and devtools://', async () => {
    const s = await t.session('curious');
    await expectRefused(s, 'navigate_page', `http://127.0.0.1:${port}/json/list`);
    await expectRefused(s, 'new_page', `http://localhost:${port}/json/version`);
    await expectRefused(s, 'navigate_page', `file://${join(t.home, 'data', 'profiles', 'default', 'chrome', 'DevToolsActivePort')}`);
    await expectRefused(s, 'navigate_page', 'chrome://inspect');
    await expectRefused(s, 'navigate_page', 'devtools://devtools/bundled/inspector.html');
    expect(await bodyText(s)).not.toMatch(TAB_LIST);
  });

  it('keeps a page from reading or using the endpoint with fetch', async () => {
    const victim = await t.session('victim');
    await victim.text('new_page', { url: `${origin}/victim` });
    const victimTab = (await devToolsTargets()).find((target) => target.type === 'page' && target.url === `${origin}/victim`);
    expect(victimTab).toBeDefined();

    const s = await t.session('hostile-fetch');
    await s.text('new_page', { url: `${origin}/fetch?victim=${victimTab?.id ?? ''}` });
    const outcome = await s.text('evaluate_script', { function: '() => window.done' });
    expect(outcome).toContain('"close":"rejected"');
    expect(outcome).not.toMatch(TAB_LIST);
    expect((await devToolsTargets()).some((target) => target.id === victimTab?.id)).toBe(true);
  });

  it('keeps a redirect from landing on the tab list', async () => {
    const s = await t.session('hostile-redirect');
    await s.call('new_page', { url: `${origin}/redirect` });
    const text = await bodyText(s);
    expect(text).not.toMatch(TAB_LIST);
    expect(text).not.toContain(`${origin}/redirect`);
  });

  it('keeps a link from opening the tab list', async () => {
    const s = await t.session('hostile-link');
    await s.text('new_page', { url: `${origin}/link` });
    await s.text('evaluate_script', { function: '() => { document.getElementById("go").click(); return "clicked"; }' });
    const text = await waitFor(async () => {
      const current = await bodyText(s);
      return current.startsWith(`${origin}/link`) ? undefined : current;
    }, 'the link to be followed');
    expect(text).not.toMatch(TAB_LIST);
  });
});
