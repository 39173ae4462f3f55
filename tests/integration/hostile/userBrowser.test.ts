import { existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type BoundSession, type TestDaemon } from '../../helpers/daemonFixture.js';
import { TOPOLOGIES } from '../../helpers/hostileRig.js';
import { HostileServer } from '../../helpers/hostileServer.js';
import { PageProbe } from '../../helpers/pageProbe.js';
import { startUserChromium, type UserChromium } from '../../helpers/userChromium.js';
import { openUnseenPopup } from '../../helpers/unseenPopup.js';
import { waitFor, waitUntil } from '../../helpers/waitFor.js';
import { withDeadline } from '../../../shared/withDeadline.js';

/**
 * A profile on the user's own browser (`--browser-url`): the tabs the user has open there are theirs. A curious agent
 * asks for tabs nobody owns and must not learn the user's (titles, URLs with a password and a token in them). What
 * the browser has open is read from its own `/json/list`.
 */

interface JsonTab {
  id: string;
  type: string;
  url: string;
  title: string;
}

function isPageTab(value: unknown): value is JsonTab {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'page' && 'title' in value && typeof value.title === 'string';
}

async function jsonList(chromium: UserChromium): Promise<JsonTab[]> {
  const listed: unknown = await (await fetch(`${chromium.url}/json/list`)).json();
  if (!Array.isArray(listed)) {
    throw new Error('/json/list is not a list');
  }
  return listed.filter(isPageTab);
}

describe.each(TOPOLOGIES)("the user's own browser on $name", (topology) => {
  let chromium: UserChromium;
  let server: HostileServer;
  let t: TestDaemon;
  const sessions: BoundSession[] = [];
  const secretTitle = `Private inbox ${Math.random().toString(16).slice(2)}`;
  const token = `TOKEN${Math.random().toString(16).slice(2)}`;
  let userUrl: string;

  beforeAll(async () => {
    chromium = await startUserChromium();
    server = await HostileServer.start();
    const page = new URL(server.page('<p>the user reads their mail</p>', secretTitle, 'inbox'));
    page.username = 'alice';
    page.password = 'hunter2';
    page.searchParams.set('token', token);
    userUrl = page.href;
    await fetch(`${chromium.url}/json/new?${userUrl}`, { method: 'PUT' });
    t = await startTestDaemon({ browserUrl: chromium.url, workers: topology.workers });
  });

  afterAll(async () => {
    for (const session of sessions) {
      session.client.close();
    }
    await t.stop();
    await server.close();
    chromium.stop();
  });

  async function session(label: string): Promise<BoundSession> {
    const created = await t.session(label);
    sessions.push(created);
    return created;
  }

  it("list_pages with includeUnowned shows none of the user's tabs", async () => {
    const agents = [await session('curious'), await session('second')];
    for (const agent of agents) {
      await agent.text('new_page', { url: server.page('<p>agent work</p>', `Agent ${agent.short}`) });
    }
    // The user's tab is there, as the browser itself says.
    expect((await jsonList(chromium)).some((tab) => tab.title === secretTitle)).toBe(true);

    for (const agent of agents) {
      const listed = await agent.text('list_pages', { includeUnowned: true });
      expect(listed).toContain(`Agent ${agent.short}`);
      for (const secret of [secretTitle, token, 'hunter2', 'alice', '/inbox-', '(unowned)']) {
        expect(listed).not.toContain(secret);
      }
      expect(listed).toContain('tabs no session owns are the user');
    }
  });

  it("a session's download is cancelled, and the user's own downloads are left to their browser", async () => {
    const agent = await session('downloader');
    const mine = `agent-${Math.random().toString(16).slice(2)}.txt`;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const link = server.download(mine, Buffer.alloc(64 * 1024, 0x61), true, held);
    await agent.text('new_page', { url: server.page(`<a id="d" href="${link}">get</a>`, 'Agent download') });
    // The note comes with the session's next result: the click's own, or a later one.
    let answer = await agent.text('evaluate_script', { function: "() => { document.getElementById('d').click(); return 'clicked'; }" });
    const note = await waitFor(async () => {
      const text = answer;
      answer = await agent.text('list_pages');
      return /Note: .*download/.test(text) ? text : undefined;
    }, 'a note about the download');
    release();
    expect(note).toContain('tabmux did not launch');
    expect(note).toContain('cancelled');
    expect(existsSync(join(homedir(), 'Downloads', mine))).toBe(false);

    // A download in a tab of the user's own goes where their browser puts downloads, as it would without tabmux.
    const theirs = `user-${Math.random().toString(16).slice(2)}.txt`;
    const saved = join(homedir(), 'Downloads', theirs);
    try {
      await fetch(`${chromium.url}/json/new?${server.download(theirs, `user file ${theirs}`)}`, { method: 'PUT' });
      expect(await waitFor(() => (existsSync(saved) ? readFileSync(saved, 'utf8') : undefined), `the user's download at ${saved}`)).toBe(`user file ${theirs}`);
    } finally {
      rmSync(saved, { force: true });
    }
  });

  it("a user's download from a link that opens it in a new tab the page cannot reach (noopener) is left to their browser", async () => {
    const theirs = `user-popup-${Math.random().toString(16).slice(2)}.txt`;
    const saved = join(homedir(), 'Downloads', theirs);
    const pageUrl = server.page(`<a id="d" href="${server.download(theirs, `user file ${theirs}`)}" target="_blank" rel="noopener noreferrer">get</a>`, 'User popup download');
    try {
      await fetch(`${chromium.url}/json/new?${pageUrl}`, { method: 'PUT' });
      // The user clicks the link: the browser opens a tab that turns into the download and closes at once, often
      // before the daemon looks at it; it is the user's all the same, never a download whose tab cannot be told.
      const probe = await PageProbe.connect(chromium.port);
      try {
        await waitUntil(() => probe.holds(pageUrl, "document.readyState === 'complete' && document.getElementById('d') !== null"), 'the user\'s page to load its link');
        await probe.run(pageUrl, "document.getElementById('d').click()");
      } finally {
        probe.close();
      }
      expect(await waitFor(() => (existsSync(saved) ? readFileSync(saved, 'utf8') : undefined), `the user's download at ${saved}`)).toBe(`user file ${theirs}`);
    } finally {
      rmSync(saved, { force: true });
    }
  });

  it("a session's download whose tab cannot be told is cancelled too: a page that hides its tab cannot write into the user's Downloads", async () => {
    const agent = await session('hider');
    const openerUrl = server.page('<p>opener</p>', 'Opener', 'untold-opener');
    await agent.text('new_page', { url: openerUrl });
    const name = `untold-${Math.random().toString(16).slice(2)}.bin`;
    // The daemon runs on this thread, which stands still while the page's popup loads a cross-site frame whose own
    // frame begins a download, and the popup removes that frame: once the daemon looks, no frame tree and no target of
    // the browser holds it. The download keeps running until someone cancels it.
    const popup = await openUnseenPopup(chromium.port, openerUrl, { downloadNames: [name], removeFrames: true, holdDownloads: true });
    try {
      expect(await withDeadline(popup.cancelled(name).then(() => 'cancelled'), 15_000, 'still running after 15 s')).toBe('cancelled');
    } finally {
      await popup.close();
    }
    expect(existsSync(join(homedir(), 'Downloads', name))).toBe(false);
  });
});
