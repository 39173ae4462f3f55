import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoundSession } from '../../helpers/daemonFixture.js';
import { ChromeCdp } from '../../helpers/chromeCdp.js';
import { TOPOLOGIES, useHostileRig } from '../../helpers/hostileRig.js';
import { waitUntil } from '../../helpers/waitFor.js';

/**
 * `new_page` with `isolatedContext` promises a fully isolated browser context. A name is the session's own: another
 * session naming the same context (on its worker or another) gets a fresh one, and the context is disposed when its
 * session closes, so nothing of it reaches a later session. What each page holds is read by the page itself
 * (`document.cookie`, `localStorage`); which contexts and tabs exist, from Chrome on the test's own connection and
 * its `/json/list`.
 */

const KEEP = "() => { document.cookie = 'keep=' + SECRET + '; max-age=3600; path=/'; localStorage.setItem('keep', SECRET); return 'kept'; }";
const READ = "() => JSON.stringify({ cookie: document.cookie, stored: localStorage.getItem('keep') })";

describe.each(TOPOLOGIES)('isolated contexts on $name', (topology) => {
  const rig = useHostileRig(topology);
  let cdp: ChromeCdp;
  /** One page URL for everyone: same origin, so a shared context would show the cookie and the storage. */
  let origin: () => string;

  beforeAll(async () => {
    cdp = await ChromeCdp.connect(rig().port);
    origin = () => rig().server.page('<p>context</p>', 'Context page');
  });

  afterAll(() => cdp.close());

  /**
   * Opens a page in the session's context `name` and stores a new secret there as a cookie and in localStorage;
   * returns the secret and the page's URL.
   */
  async function keepSecret(s: BoundSession, name: string): Promise<{ secret: string; url: string }> {
    const secret = `S${Math.random().toString(16).slice(2)}`;
    const url = origin();
    await s.text('new_page', { url, isolatedContext: name });
    expect(await s.text('evaluate_script', { function: KEEP.replace(/SECRET/g, JSON.stringify(secret)) })).toContain('kept');
    return { secret, url };
  }

  async function seen(s: BoundSession, name: string): Promise<string> {
    await s.text('new_page', { url: origin(), isolatedContext: name });
    return s.text('evaluate_script', { function: READ });
  }

  it("a context name is the session's own: the same name in another session is another context", async () => {
    const { first, second } = await rig().sameWorker();
    const { secret } = await keepSecret(first, 'ctx1');
    // The session's own pages in its context share it.
    expect(await seen(first, 'ctx1')).toContain(secret);
    expect(await seen(second, 'ctx1')).not.toContain(secret);
    const { attacker, victim } = await rig().pair();
    const { secret: other } = await keepSecret(victim, 'shared-name');
    expect(await seen(attacker, 'shared-name')).not.toContain(other);
    expect(await seen(attacker, 'ctx1')).not.toContain(secret);

    // Page lists name the session's own contexts by its own names, and no other session's.
    const listed = await first.text('list_pages');
    expect(listed).toContain('isolatedContext=ctx1');
    expect(listed).not.toContain('shared-name');
    expect(listed).not.toContain('isolated-context-');
  });

  it('is disposed with its session: its tabs close, and a later session never sees its cookies or storage', async () => {
    const before = await cdp.browserContexts();
    const owner = await rig().session('owner');
    const worker = await rig().workerOf(owner);
    const { secret, url } = await keepSecret(owner, 'ctx1');
    const made = (await cdp.browserContexts()).filter((id) => !before.includes(id));
    expect(made).toHaveLength(1);
    expect(await rig().tabAt(url)).toBeDefined();

    await rig().control.call('tabmux/session.close', { session: owner.id });
    // Chrome itself no longer has the context or its tab.
    await waitUntil(async () => !(await cdp.browserContexts()).some((id) => made.includes(id)), 'the closed session’s context to be disposed');
    await rig().waitGone(url, 'the closed session’s context tab');

    const later = await rig().session('later');
    expect(await rig().workerOf(later)).toBe(worker);
    expect(await seen(later, 'ctx1')).not.toContain(secret);
  });
});

describe.each(TOPOLOGIES)('isolated contexts in window isolation on $name', (topology) => {
  const rig = useHostileRig(topology, { isolation: 'window' });

  it("a context name is the session's own, and the context closes with its session", async () => {
    const { first, second } = await rig().sameWorker();
    const url = rig().server.page('<p>context</p>', 'Window context');
    const secret = `S${Math.random().toString(16).slice(2)}`;
    await first.text('new_page', { url, isolatedContext: 'ctx1' });
    await first.text('evaluate_script', { function: KEEP.replace(/SECRET/g, JSON.stringify(secret)) });
    await second.text('new_page', { url, isolatedContext: 'ctx1' });
    expect(await second.text('evaluate_script', { function: READ })).not.toContain(secret);

    await rig().control.call('tabmux/session.close', { session: first.id });
    const later = await rig().session('later');
    await later.text('new_page', { url, isolatedContext: 'ctx1' });
    expect(await later.text('evaluate_script', { function: READ })).not.toContain(secret);
  });
});
