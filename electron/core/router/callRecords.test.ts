import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../activity/CallRecord.js';
import { fakeRouter } from './testing/fakeRouter.js';

async function observed() {
  const records: CallRecord[] = [];
  const parts = await fakeRouter({
    observe: (record) => {
      records.push(record);
    },
    watchTabs: true,
  });
  return { ...parts, records };
}

describe('call records', () => {
  it('tell every call with its pages before and after, from the router\'s own view', async () => {
    const { router, records } = await observed();
    const { id } = router.createSession('agent');
    await router.callTool(id, 'new_page', { url: 'https://a.example/' });
    await router.callTool(id, 'navigate_page', { url: 'https://b.example/' });
    expect(records).toHaveLength(2);
    const [opened, navigated] = records;
    expect(opened).toMatchObject({ sessionId: id, label: 'agent', tool: 'new_page', pageBefore: null, pageAfter: { url: 'https://a.example/' }, opened: [{ url: 'https://a.example/' }] });
    expect(opened?.result?.isError).not.toBe(true);
    expect(navigated).toMatchObject({ tool: 'navigate_page', pageBefore: { url: 'https://a.example/' }, pageAfter: { url: 'https://b.example/' }, opened: [] });
    expect(navigated?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('tell router refusals with their error, and tool errors with the answer', async () => {
    const { router, records } = await observed();
    const { id } = router.createSession();
    await router.callTool(id, 'take_snapshot', {});
    const token = `u:${id.slice(5, 13)}:1:1_1`;
    await router.callTool(id, 'take_snapshot', {});
    await expect(router.callTool(id, 'click', { uid: token })).rejects.toMatchObject({ code: 'stale_token' });
    await expect(router.callTool(id, 'no_such_tool', {})).rejects.toMatchObject({ code: 'unknown_tool' });
    await router.callTool(id, 'click', { uid: `u:${id.slice(5, 13)}:2:9_9` }).catch(() => undefined);
    const [, , stale, unknown, missing] = records;
    expect(stale).toMatchObject({ tool: 'click', error: { code: 'stale_token' }, args: { uid: token } });
    expect(unknown).toMatchObject({ tool: 'no_such_tool', error: { code: 'unknown_tool' } });
    expect(missing?.tool).toBe('click');
  });

  it('tell calls of sessions that are gone', async () => {
    const { router, records } = await observed();
    const { id } = router.createSession();
    await router.closeSession(id);
    await expect(router.callTool(id, 'list_pages', {})).rejects.toMatchObject({ code: 'session_closed' });
    expect(records).toMatchObject([{ sessionId: id, tool: 'list_pages', error: { code: 'session_closed' }, pageBefore: null }]);
  });
});
