import type { BrowserTab } from './BrowserTab.js';

/** What `whenTabEvent` listens on: the tab list's `opened` or `closed` event. */
export interface TabEvents {
  on(event: 'opened' | 'closed', listener: (tab: BrowserTab) => void): unknown;
  off(event: 'opened' | 'closed', listener: (tab: BrowserTab) => void): unknown;
}

/**
 * The first tab `event` reports that `matches`, or undefined after `timeoutMs` or once cancelled; the listener goes
 * either way.
 */
export function whenTabEvent(
  tabs: TabEvents,
  event: 'opened' | 'closed',
  matches: (tab: BrowserTab) => boolean,
  timeoutMs: number,
): { promise: Promise<BrowserTab | undefined>; cancel: () => void } {
  let cancel = (): void => undefined;
  const promise = new Promise<BrowserTab | undefined>((resolve) => {
    const end = (tab: BrowserTab | undefined): void => {
      clearTimeout(timer);
      tabs.off(event, listener);
      resolve(tab);
    };
    const listener = (tab: BrowserTab): void => {
      if (matches(tab)) {
        end(tab);
      }
    };
    const timer = setTimeout(() => end(undefined), timeoutMs);
    cancel = () => end(undefined);
    tabs.on(event, listener);
  });
  return { promise, cancel };
}
