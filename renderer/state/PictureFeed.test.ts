import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TabPicture } from '../../shared/model.js';
import { PictureFeed } from './PictureFeed.js';
import { TestHost } from './testHost.js';

function picture(tabId: string, data = 'x'): TabPicture {
  return { tabId, data, width: 4, height: 3, timestamp: 1, metadata: { deviceWidth: 8, deviceHeight: 6, offsetTop: 0, pageScaleFactor: 1 } };
}

function setup() {
  const host = new TestHost((method) => (method === 'supervisor/pictures.watch' ? { watching: [] } : { sent: true }));
  const feed = new PictureFeed(host);
  const watched = () => host.calls.filter((call) => call.method === 'supervisor/pictures.watch').at(-1)?.params;
  return { host, feed, watched };
}

describe('PictureFeed', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('tells the supervisor which tabs this window shows, each at the largest size, in one call per burst', async () => {
    const { host, feed, watched } = setup();
    const stopA = feed.watch('p', 't1', 'thumb', () => undefined);
    feed.watch('p', 't1', 'live', () => undefined);
    feed.watch('p', 't2', 'thumb', () => undefined);
    await vi.runAllTimersAsync();
    expect(host.calls.filter((call) => call.method === 'supervisor/pictures.watch')).toHaveLength(1);
    expect(watched()).toEqual({
      profile: 'p',
      tabs: [
        { tabId: 't1', size: 'live' },
        { tabId: 't2', size: 'thumb' },
      ],
    });
    stopA();
    await vi.runAllTimersAsync();
    expect(watched()).toEqual({
      profile: 'p',
      tabs: [
        { tabId: 't1', size: 'live' },
        { tabId: 't2', size: 'thumb' },
      ],
    });
  });

  it('hands frames to the pictures of their tab only, and the last frame to a picture that appears later', async () => {
    const { host, feed } = setup();
    const first: string[] = [];
    const other: string[] = [];
    feed.watch('p', 't1', 'thumb', (frame) => first.push(frame.data));
    feed.watch('p', 't2', 'thumb', (frame) => other.push(frame.data));
    host.emit({ type: 'picture', profile: 'p', picture: picture('t1', 'a') });
    host.emit({ type: 'picture', profile: 'q', picture: picture('t1', 'b') });
    expect(first).toEqual(['a']);
    expect(other).toEqual([]);
    const later: string[] = [];
    feed.watch('p', 't1', 'live', (frame) => later.push(frame.data));
    expect(later).toEqual(['a']);
    await vi.runAllTimersAsync();
  });

  it('watches nothing while the window is hidden, and everything again when it is shown or reconnects', async () => {
    const { host, feed, watched } = setup();
    const stop = feed.watch('p', 't1', 'thumb', () => undefined);
    await vi.runAllTimersAsync();
    feed.setActive(false);
    await vi.runAllTimersAsync();
    expect(watched()).toEqual({ profile: 'p', tabs: [] });
    feed.setActive(true);
    await vi.runAllTimersAsync();
    expect(watched()).toEqual({ profile: 'p', tabs: [{ tabId: 't1', size: 'thumb' }] });
    const before = host.calls.length;
    host.setConnection({ state: 'open' });
    await vi.runAllTimersAsync();
    expect(host.calls.length).toBe(before + 1);
    stop();
    await vi.runAllTimersAsync();
    expect(watched()).toEqual({ profile: 'p', tabs: [] });
  });
});
