import type { ToolInfo } from '../../../shared/protocol.js';
import { Logger } from '../platform/Logger.js';
import { UpstreamClient } from '../upstream/UpstreamClient.js';
import { ToolCatalog, type AgentToolOptions } from './ToolCatalog.js';

/**
 * Where the worker is pointed. Upstream connects to its browser only when a tool first runs, and no tool runs here;
 * the port is the discard service's, which nothing of a browser's listens on, should that ever change.
 */
const NO_BROWSER = 'http://127.0.0.1:9';

/**
 * The tools as agents see them, for a profile whose daemon does not run (`tabmux mcp list`): one upstream worker is
 * started on its own, asked for its tools and stopped, and its list goes through the same ToolCatalog a daemon's
 * router serves. No daemon and no Chrome is started: reading the list must not leave a browser running.
 */
export async function agentToolsWithoutBrowser(options: AgentToolOptions & { logger?: Logger } = {}): Promise<ToolInfo[]> {
  const upstream = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: NO_BROWSER }, logger: options.logger ?? Logger.silent() });
  try {
    return new ToolCatalog(await upstream.listTools()).agentTools(options);
  } finally {
    await upstream.close('the tool list was read');
  }
}
