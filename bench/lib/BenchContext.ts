import type { DirectBrowser } from './DirectBrowser.js';
import type { PageServer } from './PageServer.js';
import type { TabmuxDaemon } from './TabmuxDaemon.js';
import type { Teardown } from './Teardown.js';

/** What the browser-backed suites share: one tabmux daemon, one directly driven Chrome, one page server. */
export interface BenchContext {
  teardown: Teardown;
  tabmux: TabmuxDaemon;
  direct: DirectBrowser;
  pages: PageServer;
  /** Progress for whoever watches the run; results go to the table, not here. */
  log: (message: string) => void;
}
