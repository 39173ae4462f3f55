import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardServer, type SeenRequest } from '../../../electron/core/dashboard/DashboardServer.js';
import { Supervisor } from '../../../electron/core/supervisor/Supervisor.js';
import { SupervisorService } from '../../../electron/core/supervisor/SupervisorService.js';
import { resolvePaths, type TabmuxPaths } from '../../../electron/core/platform/paths.js';
import type { ToolResult } from '../../../shared/protocol.js';
import { textOf } from '../../../shared/toolResult.js';
import { uidOf, startTestDaemon, type BoundSession, type TestDaemon } from '../../helpers/daemonFixture.js';
import { HostileServer } from '../../helpers/hostileServer.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';
import { makeTestHome } from '../../helpers/testHome.js';
import { startUserChromium, type UserChromium } from '../../helpers/userChromium.js';
import { waitFor } from '../../helpers/waitFor.js';

/**
 * tabmux's dashboard steers every session (the list, the activity log, close, pause, pictures, takeover input)
 * through one WebSocket. A person may open its link in the very browser agents drive (a headed tabmux Chrome, or
 * their own Chrome added with --browser-url), so that browser holds whatever the dashboard leaves behind. An agent,
 * or a page in its tab, must not reach the dashboard from there: its port is refused in every tab of every profile's
 * browser, like the DevTools port, and the WebSocket answers only a tab that presents the token itself, never a
 * cookie. Ground truth: what the dashboard server itself saw, and what the attacker's own script got back.
 */

/** A dashboard on a test home, with everything it was asked for. */
interface TestDashboard {
  server: DashboardServer;
  supervisor: Supervisor;
  seen: SeenRequest[];
  origin: string;
  close: () => Promise<void>;
}

/** The renderer's stand-in: the attacks below bring their own script, so the page only needs to exist. */
const rendererDir = mkdtempSync(join(tmpdir(), 'tmx-ui-'));
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>tabmux</title><p>dashboard</p>');
afterAll(() => rmSync(rendererDir, { recursive: true, force: true }));

/**
 * `watching`: whether the dashboard's supervisor sees the daemons running now (as `tabmux dashboard` does) and so
 * tells them itself; otherwise the daemons have only the dashboard's record in the runtime dir to go by.
 */
async function startDashboard(paths: TabmuxPaths, watching: boolean): Promise<TestDashboard> {
  const supervisor = new Supervisor({ paths, pollIntervalMs: 60_000 });
  if (watching) {
    await supervisor.start();
  }
  const seen: SeenRequest[] = [];
  const server = await DashboardServer.start({ service: new SupervisorService(supervisor), paths, rendererDir, port: 0, onRequest: (request) => seen.push(request) });
  return {
    server,
    supervisor,
    seen,
    origin: `http://127.0.0.1:${server.port}`,
    close: async () => {
      await server.close();
      await supervisor.dispose();
    },
  };
}

/** What the dashboard let through: a page's files, or an opened WebSocket. */
function admitted(seen: readonly SeenRequest[]): SeenRequest[] {
  return seen.filter((request) => request.status === 200 || request.status === 101);
}

/**
 * The attacker's script, run in a page: reads the dashboard's page and asks its WebSocket for every session, as the
 * dashboard's own page would. `query` is what it adds to the socket's URL. It settles on its own: a socket either
 * answers, fails or closes.
 */
function stealScript(origin: string, query = ''): string {
  return `async () => {
    const out = [location.href];
    try {
      const page = await fetch(${JSON.stringify(`${origin}/`)}, { credentials: 'include' });
      out.push('page ' + page.status + ' ' + (await page.text()).slice(0, 200));
    } catch (error) {
      out.push('page refused ' + error);
    }
    out.push(await new Promise((resolve) => {
      const socket = new WebSocket(${JSON.stringify(`${origin.replace('http:', 'ws:')}/ws${query}`)});
      socket.onopen = () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'supervisor/snapshot', params: {} }));
      socket.onmessage = (message) => {
        // Events may come first; the answer to the request is the one with its id.
        if (JSON.parse(message.data).id === 1) {
          resolve('socket answered ' + message.data);
          socket.close();
        }
      };
      socket.onerror = () => resolve('socket refused');
      socket.onclose = () => resolve('socket closed');
    }));
    return out.join('\\n');
  }`;
}

function errorCode(result: ToolResult): unknown {
  return result._meta?.['tabmux/error'];
}

describe.each(TOPOLOGIES)("tabmux's dashboard on $name", (topology) => {
  const rig = useHostileRig(topology);
  let dashboard: TestDashboard;

  beforeAll(async () => {
    // After the daemon, with a supervisor that watches it: the daemon hears of the dashboard from the supervisor.
    dashboard = await startDashboard(resolvePaths({ TABMUX_HOME: rig().t.home }), true);
  });

  afterAll(async () => {
    await dashboard.close();
  });

  async function victimAndAttacker(): Promise<{ attacker: BoundSession; victim: BoundSession }> {
    const r = rig();
    const { attacker, victim } = await r.pair();
    await victim.text('new_page', { url: r.server.page('<p>private mail</p>', 'Victim inbox') });
    await attacker.text('new_page', { url: r.server.page('<p>start</p>', 'Start') });
    return { attacker, victim };
  }

  it('an agent cannot open the dashboard, even in a browser where a person opened its link', async () => {
    const r = rig();
    const { attacker, victim } = await victimAndAttacker();
    // A person opens the link in the profile's own browser. It does not load there (its port is refused); before,
    // it loaded and left its access in the profile for every tab.
    await r.control.call('tabmux/tabs.open', { url: dashboard.server.url }).catch(() => undefined);
    const before = dashboard.seen.length;
    const navigated = await attacker.call('navigate_page', { url: `${dashboard.origin}/` });
    const opened = await attacker.call('new_page', { url: `${dashboard.origin}/` });
    const loot = textOf(await attacker.call('evaluate_script', { function: stealScript(dashboard.origin) }));
    expect(loot).not.toContain(victim.id);
    expect(loot).not.toContain('socket answered');
    expect(errorCode(navigated)).toBe('url_denied');
    expect(errorCode(opened)).toBe('url_denied');
    expect(admitted(dashboard.seen.slice(before))).toEqual([]);
    // The victim's session is still there: nobody closed it through the dashboard.
    expect(await victim.text('evaluate_script', { function: '() => document.body.innerText' })).toContain('private mail');
  });

  it("a page's fetch, frame, popup, WebSocket, redirect or link reaches nothing of the dashboard", async () => {
    const r = rig();
    const { attacker, victim } = await victimAndAttacker();
    const before = dashboard.seen.length;
    const key = `dashboard-${attacker.id}`;
    const report = `(what) => fetch(${JSON.stringify(r.server.reportPath(key))}, { method: 'POST', body: String(what) })`;
    const script = `<iframe src="${dashboard.origin}/"></iframe><script>
      const report = ${report};
      fetch('${dashboard.origin}/', { mode: 'no-cors', credentials: 'include' }).then(() => report('fetch sent'), (e) => report('fetch refused ' + e));
      const socket = new WebSocket('${dashboard.origin.replace('http:', 'ws:')}/ws');
      socket.onopen = () => report('socket opened');
      socket.onerror = () => report('socket refused');
    </script>`;
    await attacker.text('navigate_page', { url: r.server.page(script, 'Fetcher') });
    const reports = await waitFor(() => (r.server.reports(key).length === 2 ? r.server.reports(key) : undefined), 'the fetch and the socket to settle');
    expect(reports.map((line) => line.split(' ').slice(0, 2).join(' ')).sort()).toEqual(['fetch refused', 'socket refused']);

    expect(textOf(await attacker.call('navigate_page', { url: r.server.redirect(`${dashboard.origin}/`) }))).not.toContain(victim.id);
    await attacker.text('navigate_page', { url: r.server.page(`<a href="${dashboard.origin}/" target="_blank">open</a> <a href="${dashboard.origin}/">go</a>`, 'Links') });
    await attacker.call('click', { uid: uidOf(await attacker.text('take_snapshot'), 'link', 'open') });
    await attacker.call('click', { uid: uidOf(await attacker.text('take_snapshot'), 'link', 'go') });
    const loot = textOf(await attacker.call('evaluate_script', { function: stealScript(dashboard.origin) }));
    expect(loot).not.toContain('socket answered');
    // The dashboard saw no request for its page (Chrome failed them all before they left the browser), and opened
    // no socket (Chrome does not pause WebSocket handshakes; the dashboard refused this one by its Origin).
    expect(dashboard.seen.slice(before).filter((request) => request.kind === 'file')).toEqual([]);
    expect(admitted(dashboard.seen.slice(before))).toEqual([]);
  });
});

/**
 * A browser of the user's own (`--browser-url`), and dashboards that start before and after its daemon, watched by
 * the dashboard's supervisor or not: the daemon learns of each one, and keeps every tab of that browser away from
 * all of them at once. Placement on workers plays no part here, so one worker is enough.
 */
describe("dashboards, and a browser of the user's own", () => {
  let chromium: UserChromium;
  let plain: UserChromium;
  let paths: TabmuxPaths;
  let first: TestDashboard;
  let t: TestDaemon;
  let server: HostileServer;

  beforeAll(async () => {
    const home = makeTestHome();
    paths = home.paths;
    chromium = await startUserChromium();
    plain = await startUserChromium();
    server = await HostileServer.start();
    // Before the daemon: it reads the dashboard's record when its browser starts.
    first = await startDashboard(paths, false);
    t = await startTestDaemon({ browserUrl: chromium.url }, { home: home.home });
  });

  afterAll(async () => {
    await first.close();
    await server.close();
    await t.stop();
    chromium.stop();
    plain.stop();
  });

  /** Whether an agent's navigation to the origin is refused before it reaches the browser. */
  async function denied(session: BoundSession, origin: string): Promise<boolean> {
    return errorCode(await session.call('navigate_page', { url: `${origin}/` })) === 'url_denied';
  }

  it('keeps agents away from a dashboard started before the daemon and from one started after it, and lets go of one that stopped', async () => {
    const agent = await t.session('agent');
    await agent.text('new_page', { url: server.page('<p>start</p>', 'Start') });
    expect(await denied(agent, first.origin)).toBe(true);

    // After the daemon, by a supervisor that does not know it: the daemon follows the dashboards' folder.
    const second = await startDashboard(paths, false);
    try {
      await waitFor(async () => ((await denied(agent, second.origin)) ? true : undefined), 'the daemon to learn of the second dashboard', 10_000);
      expect(await denied(agent, first.origin)).toBe(true);
      const before = { first: first.seen.length, second: second.seen.length };
      const key = `both-${agent.id}`;
      const report = `(what) => fetch(${JSON.stringify(server.reportPath(key))}, { method: 'POST', body: String(what) })`;
      const script = `<script>
        const report = ${report};
        for (const origin of ['${first.origin}', '${second.origin}']) {
          fetch(origin + '/', { mode: 'no-cors' }).then(() => report('sent'), () => report('refused'));
        }
      </script>`;
      await agent.text('navigate_page', { url: server.page(script, 'Both') });
      const reports = await waitFor(() => (server.reports(key).length === 2 ? server.reports(key) : undefined), 'both fetches to settle');
      expect(reports).toEqual(['refused', 'refused']);
      expect(admitted(first.seen.slice(before.first))).toEqual([]);
      expect(admitted(second.seen.slice(before.second))).toEqual([]);
    } finally {
      await second.close();
    }
    // A dashboard that stopped takes its record along: its port is anybody's again.
    await waitFor(async () => ((await denied(agent, second.origin)) ? undefined : true), 'the daemon to let go of the stopped dashboard', 10_000);
    expect(await denied(agent, first.origin)).toBe(true);
  });

  it('a browser that holds the old access cookie but not the per-tab token gets nothing', async () => {
    const victim = await t.session('victim');
    const browser = await puppeteer.connect({ browserURL: plain.url, defaultViewport: null });
    try {
      const page = await browser.newPage();
      // What an older dashboard left in the browser once a person had opened its link there.
      await browser.setCookie({ name: `tabmux_token_${first.server.port}`, value: first.server.token, domain: '127.0.0.1', path: '/' });
      await page.goto(`${first.origin}/`);
      const before = first.seen.length;
      const loot = String(await page.evaluate(`(${stealScript(first.origin)})()`));
      expect(loot).not.toContain(victim.id);
      expect(loot).toContain('socket refused');
      expect(first.seen.slice(before).filter((request) => request.kind === 'socket')).toEqual([{ kind: 'socket', path: '/ws', status: 403 }]);
      // The same page, presenting the token itself, is answered: what it was refused above was the token, nothing else.
      const answered = String(await page.evaluate(`(${stealScript(first.origin, `?token=${encodeURIComponent(first.server.token)}`)})()`));
      expect(answered).toContain(victim.id);
    } finally {
      await browser.disconnect();
    }
  });
});
