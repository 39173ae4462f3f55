import { join } from 'node:path';
import type { ToolInfo } from '../../../../shared/protocol.js';
import { Logger } from '../../platform/Logger.js';
import { FrontTab } from '../FrontTab.js';
import { PageAllocator } from '../PageAllocator.js';
import type { Isolation } from '../RouterSettings.js';
import type { Session } from '../Session.js';
import { SessionRegistry } from '../SessionRegistry.js';
import { SessionTabs } from '../SessionTabs.js';
import type { Worker } from '../Worker.js';
import { TabIdentity } from '../TabIdentity.js';
import { ToolCatalog } from '../ToolCatalog.js';
import { WorkerPool } from '../WorkerPool.js';
import { FAKE_TOOLS, FakeBrowser, FakeUpstream } from './FakeUpstream.js';
import { testTempDir } from './testTempDir.js';

/** The router's parts wired over fake upstreams on one fake browser, as the Router wires them. */
export function fakeParts(options: { workers?: number; urls?: readonly string[]; tools?: readonly ToolInfo[]; isolation?: Isolation } = {}) {
  const browser = new FakeBrowser(options.urls);
  const tools = options.tools ?? FAKE_TOOLS;
  const upstreams: FakeUpstream[] = [];
  const sessions = new SessionRegistry(60_000);
  const sessionById = (id: string): Session | undefined => sessions.find(id);
  const catalog = new ToolCatalog(tools);
  const pool = new WorkerPool({
    size: options.workers ?? 1,
    callTimeoutMs: 5_000,
    workerIdleMs: 60_000,
    logger: Logger.silent(),
    startUpstream: (index) => {
      const upstream = new FakeUpstream(browser, tools);
      upstreams[index] = upstream;
      return Promise.resolve(upstream);
    },
    isPaused: (id) => sessions.isPaused(id),
    prepare: () => Promise.resolve(),
    onQueueChange: () => undefined,
    onWorkersChange: () => undefined,
  });
  const tabs = new TabIdentity({ available: () => catalog.upstreamHas('get_tab_id'), sessions: () => sessions.all(), sessionById });
  const windows = { browser: () => browser, pageIdOfTab: async (worker: Worker, tabId: string) => (await tabs.pageIdsByTab(worker)).get(tabId) };
  const pages = new PageAllocator(sessionById, options.isolation === 'window' ? windows : undefined);
  const sessionTabs = new SessionTabs({ tabs, pool, pages, logger: Logger.silent(), changed: () => undefined });
  sessionTabs.watch(browser);
  const abandoned = async (session: Session, worker: Worker): Promise<void> => {
    await sessionTabs.closeAll(session, worker, true);
  };
  /** A new session on the least loaded worker. */
  const createSession = (label: string | null = null): Session => sessions.add(label, pool.pin().index);
  const filesDir = join(testTempDir('tabmux-fake-'), 'files');
  const windowOf = (tabId: string): Promise<number | null> => browser.windowOf(tabId);
  return { browser, windowOf, upstreams, sessions, pool, pages, tabs, sessionTabs, abandoned, front: new FrontTab(), catalog, createSession, filesDir };
}
