import { TabmuxError } from '../../../shared/errors.js';
import type { OwnedPage } from './Session.js';
import type { TabIdentity } from './TabIdentity.js';
import type { Worker } from './Worker.js';

function dimension(args: Readonly<Record<string, unknown>>, name: 'width' | 'height'): number {
  const value = args[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new TabmuxError('invalid_params', `resize_page: ${name} must be a positive whole number of CSS pixels`);
  }
  return value;
}

/**
 * `resize_page` when sessions share windows (tab isolation). Upstream resizes the page's window, and every tab in it
 * (other sessions' too, and tabs opened there later) would take the new size. Instead the page's own viewport is
 * emulated on the daemon's connection to the browser and the window is left as it is. Returns the line that tells
 * the agent what happened.
 */
export async function resizeInPage(tabs: TabIdentity, worker: Worker, page: OwnedPage, args: Readonly<Record<string, unknown>>): Promise<string> {
  const width = dimension(args, 'width');
  const height = dimension(args, 'height');
  const tabId = page.tabId ?? (await tabs.tabIdOf(worker, page.pageId));
  const emulate = tabs.browser?.emulateViewport?.bind(tabs.browser);
  if (tabId === undefined || emulate === undefined) {
    throw new TabmuxError('browser_unavailable', "resize_page: the daemon's connection to the browser does not know this page's tab right now; try again in a moment");
  }
  page.tabId = tabId;
  if (!(await emulate(tabId, width, height))) {
    throw new TabmuxError('upstream_failed', 'resize_page: the browser refused to resize this page (it may be closing); call list_pages and try again');
  }
  return `Resized this page's viewport to ${width}x${height} CSS pixels. Only this page changed: its window is shared with other sessions' tabs, so the window keeps its size.`;
}
