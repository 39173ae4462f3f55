import { join } from 'node:path';
import { Logger } from '../../platform/Logger.js';
import type { CallObserver } from '../../activity/CallRecord.js';
import { Router } from '../Router.js';
import { DEFAULT_SETTINGS, type RouterSettings } from '../RouterSettings.js';
import { FakeBrowser, FakeUpstream } from './FakeUpstream.js';
import { testTempDir } from './testTempDir.js';

export interface FakeRouterOptions<U extends FakeUpstream> {
  settings?: Partial<RouterSettings>;
  /** The browser's tabs before the router starts (a person's tab, by default). */
  urls?: readonly string[];
  /** Whether the router follows the browser's own reports of openings and closings, as the daemon wires it. */
  watchTabs?: boolean;
  upstream?: (browser: FakeBrowser) => U;
  observe?: CallObserver;
}

/** A started Router over fake upstreams on one fake browser, as the daemon wires a real one. */
export async function fakeRouter<U extends FakeUpstream = FakeUpstream>(options: FakeRouterOptions<U> = {}) {
  const browser = new FakeBrowser(options.urls ?? ['https://human.example/']);
  const upstreams: U[] = [];
  const make = options.upstream ?? ((on: FakeBrowser) => new FakeUpstream(on) as U);
  const router = new Router({
    profile: 'test',
    settings: { ...DEFAULT_SETTINGS, sessionTtlMs: 60_000, ...options.settings },
    logger: Logger.silent(),
    startUpstream: (index) => {
      const upstream = make(browser);
      upstreams[index] = upstream;
      return Promise.resolve(upstream);
    },
    filesDir: join(testTempDir('tabmux-router-'), 'files'),
    observe: options.observe,
  });
  if (options.watchTabs === true) {
    router.watchTabs(browser);
  }
  await router.start();
  return { browser, upstreams, router };
}
