import { describe, expect, it } from 'vitest';
import { textOf } from '../../../shared/toolResult.js';
import { fakeRouter } from './testing/fakeRouter.js';

/** A session with one page, its snapshot token, and the Chrome tab id of the page. */
async function sessionWithPage() {
  const { router } = await fakeRouter({ watchTabs: true });
  const { id } = router.createSession('agent');
  await router.callTool(id, 'new_page', { url: 'https://login.example/' });
  const snapshot = textOf(await router.callTool(id, 'take_snapshot', {}));
  const token = /uid=(u:\S+)/.exec(snapshot)?.[1] ?? '';
  const tab = (await router.tabs()).find((candidate) => candidate.owner === id);
  return { router, id, token, tabId: tab?.tabId ?? '' };
}

describe('takeover input', () => {
  it('is refused while the session owning the tab runs, and accepted once it is paused', async () => {
    const { router, id, tabId } = await sessionWithPage();
    expect(tabId).not.toBe('');
    expect(() => router.takeoverInput(tabId)).toThrow(expect.objectContaining({ code: 'page_conflict' }));
    router.setPaused(id, true);
    expect(() => router.takeoverInput(tabId)).not.toThrow();
    router.setPaused(id, false);
    expect(() => router.takeoverInput(tabId)).toThrow(expect.objectContaining({ code: 'page_conflict' }));
  });

  it('leaves a tab no session owns to the person', async () => {
    const { router } = await fakeRouter({ watchTabs: true });
    const human = (await router.tabs()).find((tab) => tab.owner === null);
    expect(() => router.takeoverInput(human?.tabId ?? 'TAB-none')).not.toThrow();
  });

  it('tells the agent after hand-back that the user changed its page, once, and makes its tokens stale', async () => {
    const { router, id, token, tabId } = await sessionWithPage();
    const epoch = router.sessionInfo(id).epoch;
    router.setPaused(id, true);
    router.takeoverInput(tabId)();
    router.takeoverInput(tabId)();
    expect(router.sessionInfo(id).epoch).toBe(epoch + 1);
    router.setPaused(id, false);
    await expect(router.callTool(id, 'click', { uid: token })).rejects.toMatchObject({ code: 'stale_token' });
    const next = textOf(await router.callTool(id, 'list_pages', {}));
    expect(next).toContain('the user took over its tab (https://login.example/)');
    expect(next.match(/took over/g)).toHaveLength(1);
    expect(textOf(await router.callTool(id, 'list_pages', {}))).not.toContain('took over');
  });

  it('leaves no note when the person only watched', async () => {
    const { router, id, token, tabId } = await sessionWithPage();
    router.setPaused(id, true);
    router.takeoverInput(tabId);
    router.setPaused(id, false);
    expect(textOf(await router.callTool(id, 'click', { uid: token }))).not.toContain('took over');
  });
});
