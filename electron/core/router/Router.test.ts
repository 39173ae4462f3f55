import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DaemonEvent } from '../../../shared/model.js';
import { textOf } from '../../../shared/toolResult.js';
import { Logger } from '../platform/Logger.js';
import { Router } from './Router.js';
import { DEFAULT_SETTINGS } from './RouterSettings.js';
import { FakeBrowser, FakeUpstream } from './testing/FakeUpstream.js';
import { testTempDir } from './testing/testTempDir.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function setup(workers = 1) {
  const browser = new FakeBrowser(['https://human.example/']);
  const upstreams: FakeUpstream[] = [];
  const router = new Router({
    profile: 'test',
    settings: { ...DEFAULT_SETTINGS, workers, sessionTtlMs: 60_000 },
    logger: Logger.silent(),
    startUpstream: (index) => {
      const upstream = new FakeUpstream(browser);
      upstreams[index] = upstream;
      return Promise.resolve(upstream);
    },
    filesDir: join(testTempDir('tabmux-router-'), 'files'),
  });
  const events: DaemonEvent[] = [];
  router.onEvent((event) => events.push(event));
  await router.start();
  return { browser, upstreams, router, events };
}

describe('Router', () => {
  it('runs a session\'s calls and reports its state', async () => {
    const { router, events } = await setup();
    const { id } = router.createSession('agent');
    await router.callTool(id, 'new_page', { url: 'https://a.example/' });
    expect(router.sessionInfo(id)).toMatchObject({ label: 'agent', pages: [{ url: 'https://a.example/', current: true, origin: 'created' }] });
    expect(router.sessionPage(id).url).toBe('https://a.example/');
    expect(router.listSessions().map((session) => session.id)).toEqual([id]);
    await tick();
    expect(events.some((event) => event.type === 'session.updated' && event.session.id === id)).toBe(true);
    expect(router.agentTools().map((tool) => tool.name)).not.toContain('get_tab_id');
  });

  it('closes the tabs a session opened when it ends, and leaves attached ones open', async () => {
    const { router, browser, events } = await setup();
    const { id } = router.createSession();
    await router.attach(id, 1);
    await router.callTool(id, 'new_page', { url: 'https://a.example/' });
    const result = await router.closeSession(id);
    expect(result).toEqual({ closed: id, closedPages: [2] });
    expect(browser.tabs.map((tab) => tab.url)).toEqual(['https://human.example/']);
    expect(events).toContainEqual({ type: 'session.closed', profile: 'test', sessionId: id, reason: 'closed' });
    await expect(router.callTool(id, 'list_pages', {})).rejects.toMatchObject({ code: 'session_closed' });
  });

  it('reaps idle sessions that nobody holds', async () => {
    const { router } = await setup();
    const idle = router.createSession();
    const held = router.createSession();
    router.bind(held.id, 'conn-1');
    expect(router.reap(Date.now() + 120_000)).toEqual([idle.id]);
    await tick();
    await expect(router.callTool(idle.id, 'list_pages', {})).rejects.toMatchObject({ code: 'session_expired' });
    router.unbind(held.id, 'conn-1');
    expect(router.sessionInfo(held.id).owned).toBe(false);
  });

  it('tells every session its pages were lost when Chrome goes', async () => {
    const { router, browser } = await setup();
    const { id } = router.createSession();
    await router.callTool(id, 'new_page', { url: 'https://a.example/' });
    browser.tabs.splice(0);
    browser.open('about:blank');
    await router.browserLost('Chrome exited: killed');
    expect(router.sessionInfo(id).pages).toEqual([]);
    expect(router.workers()[0]?.state).toBe('restarting');
    const text = textOf(await router.callTool(id, 'list_extensions', {}));
    expect(text).toMatch(/^Note: Chrome restarted \(Chrome exited: killed\); your page\(s\) 2 \(https:\/\/a\.example\/\) were lost/);
  });

  it('finds a session\'s tabs again after its worker restarts', async () => {
    const { router, upstreams } = await setup();
    const { id } = router.createSession();
    await router.callTool(id, 'new_page', { url: 'https://a.example/' });
    const first = upstreams[0];
    await first?.close();
    await tick();
    expect(router.workers()[0]?.state).toBe('failed');
    const text = textOf(await router.callTool(id, 'list_pages', {}));
    expect(text).toMatch(/your pages were kept but may have new ids/);
    expect(text).toMatch(/https:\/\/a\.example\/ \[selected\]/);
    expect(upstreams[0]).not.toBe(first);
  });

  it('pauses a session and refuses everything once closed', async () => {
    const { router, events } = await setup();
    const { id } = router.createSession();
    expect(router.setPaused(id, true).activity).toBe('paused');
    expect(router.setPaused(id, false).activity).toBe('idle');
    await router.close();
    expect(events).toContainEqual({ type: 'session.closed', profile: 'test', sessionId: id, reason: 'daemon_stopped' });
    expect(() => router.createSession()).toThrow(/daemon is stopping/);
    expect(router.listSessions()).toEqual([]);
  });
});
