import { describe, expect, it } from 'vitest';
import type { TabPicture } from '../../../shared/model.js';
import type { SupervisorEvent } from '../../../shared/supervisor.js';
import { PictureRelay, type PictureDaemon } from './PictureRelay.js';

function picture(tabId: string): TabPicture {
  return { tabId, data: '', width: 4, height: 3, timestamp: 1, metadata: { deviceWidth: 8, deviceHeight: 6, offsetTop: 0, pageScaleFactor: 1 } };
}

/** A relay over a recording daemon that captures every tab asked for. */
function makeRelay() {
  const sent: { method: string; params: unknown }[] = [];
  const daemon: PictureDaemon = {
    watch: (tabs) => {
      sent.push({ method: 'tabmux/pictures.watch', params: { tabs } });
      return Promise.resolve(tabs.map((tab) => tab.tabId));
    },
    input: (tabId, input) => {
      sent.push({ method: 'tabmux/pictures.input', params: { tabId, input } });
      return Promise.resolve();
    },
  };
  const relay = new PictureRelay((profile) => (profile === 'p' ? daemon : undefined));
  const viewer = (id: string) => {
    const got: SupervisorEvent[] = [];
    return { viewer: { id, push: (event: SupervisorEvent) => got.push(event) }, got };
  };
  return { relay, sent, viewer };
}

describe('PictureRelay', () => {
  it('asks the daemon for what all windows watch, and hands each frame only to the windows that watch its tab', async () => {
    const { relay, sent, viewer } = makeRelay();
    const a = viewer('a');
    const b = viewer('b');
    expect(await relay.watch(a.viewer, 'p', [{ tabId: 't1', size: 'thumb' }])).toEqual(['t1']);
    await relay.watch(b.viewer, 'p', [
      { tabId: 't1', size: 'live' },
      { tabId: 't2', size: 'thumb' },
    ]);
    expect(sent.at(-1)).toEqual({
      method: 'tabmux/pictures.watch',
      params: {
        tabs: [
          { tabId: 't1', size: 'live' },
          { tabId: 't2', size: 'thumb' },
        ],
      },
    });
    relay.deliver('p', picture('t2'));
    relay.deliver('p', picture('t1'));
    relay.deliver('q', picture('t1'));
    expect(a.got).toEqual([{ type: 'picture', profile: 'p', picture: picture('t1') }]);
    expect(b.got.map((event) => (event.type === 'picture' ? event.picture.tabId : ''))).toEqual(['t2', 't1']);
  });

  it('stops a window’s tabs when it goes away, unless another window watches them', async () => {
    const { relay, sent, viewer } = makeRelay();
    await relay.watch(viewer('a').viewer, 'p', [{ tabId: 't1', size: 'thumb' }]);
    await relay.watch(viewer('b').viewer, 'p', [{ tabId: 't2', size: 'thumb' }]);
    await relay.dropViewer('a');
    expect(sent.at(-1)?.params).toEqual({ tabs: [{ tabId: 't2', size: 'thumb' }] });
    await relay.dropViewer('b');
    expect(sent.at(-1)?.params).toEqual({ tabs: [] });
  });

  it('takes input only from a window that shows the tab live', async () => {
    const { relay, sent, viewer } = makeRelay();
    const a = viewer('a');
    await relay.watch(a.viewer, 'p', [{ tabId: 't1', size: 'thumb' }]);
    const click = { kind: 'text', text: 'x' } as const;
    await expect(relay.input('a', 'p', 't1', click)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(relay.input('b', 'p', 't1', click)).rejects.toMatchObject({ code: 'invalid_request' });
    await relay.watch(a.viewer, 'p', [{ tabId: 't1', size: 'live' }]);
    await relay.input('a', 'p', 't1', click);
    expect(sent.at(-1)).toEqual({ method: 'tabmux/pictures.input', params: { tabId: 't1', input: click } });
  });
});
