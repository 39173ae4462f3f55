import { describe, expect, it } from 'vitest';
import { PictureWatches } from './PictureWatches.js';

describe('PictureWatches', () => {
  it('captures the union of what every peer watches, each tab at the largest size asked for', () => {
    const watches = new PictureWatches(8);
    watches.set('a', [
      { tabId: 't1', size: 'thumb' },
      { tabId: 't2', size: 'thumb' },
    ]);
    watches.set('b', [{ tabId: 't2', size: 'live' }]);
    expect(Object.fromEntries(watches.wanted())).toEqual({ t1: 'thumb', t2: 'live' });
    expect(watches.watchers('t2').sort()).toEqual(['a', 'b']);
    expect(watches.watchers('t1')).toEqual(['a']);
  });

  it('replaces a peer set as a whole, and forgets a peer that watches nothing or went away', () => {
    const watches = new PictureWatches(8);
    watches.set('a', [{ tabId: 't1', size: 'live' }]);
    watches.set('a', [{ tabId: 't2', size: 'thumb' }]);
    expect([...watches.wanted().keys()]).toEqual(['t2']);
    watches.set('a', []);
    expect(watches.empty).toBe(true);
    watches.set('b', [{ tabId: 't3', size: 'thumb' }]);
    watches.drop('b');
    expect(watches.wanted().size).toBe(0);
    expect(watches.watchers('t3')).toEqual([]);
  });

  it('caps the tabs captured per profile, keeping the ones asked for first', () => {
    const watches = new PictureWatches(2);
    watches.set('a', [
      { tabId: 't1', size: 'thumb' },
      { tabId: 't2', size: 'thumb' },
    ]);
    watches.set('b', [
      { tabId: 't3', size: 'live' },
      { tabId: 't2', size: 'live' },
    ]);
    expect(Object.fromEntries(watches.wanted())).toEqual({ t1: 'thumb', t2: 'live' });
  });

  it('tells a live watcher from a thumbnail watcher, for takeover input', () => {
    const watches = new PictureWatches(8);
    watches.set('a', [{ tabId: 't1', size: 'thumb' }]);
    watches.set('b', [{ tabId: 't1', size: 'live' }]);
    expect(watches.watchesLive('a', 't1')).toBe(false);
    expect(watches.watchesLive('b', 't1')).toBe(true);
    expect(watches.watchesLive('c', 't1')).toBe(false);
  });
});
