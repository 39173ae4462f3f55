import type { BridgeRequest } from '../cli/EntryPoints.js';
import { McpBridge } from '../core/bridge/McpBridge.js';
import { MultiBridge } from '../core/bridge/MultiBridge.js';
import { StdioMcpServer } from '../core/bridge/StdioMcpServer.js';
import type { ToolBridge } from '../core/bridge/ToolBridge.js';
import { watchClient } from '../core/bridge/watchClient.js';
import { connectOrStart } from '../core/lifecycle/daemonProcess.js';
import { Logger } from '../core/platform/Logger.js';
import { optimizeSooner } from '../core/platform/optimizeSooner.js';
import { tabmuxVersion } from '../core/platform/version.js';

/** After a clean shutdown, anything still holding the event loop open must not keep an orphan alive. */
const EXIT_GRACE_MS = 1_000;

/**
 * `tabmux mcp serve`: an MCP server on stdio for one agent, bridged to the daemon of each profile it serves, until
 * the agent is gone.
 */
export async function runBridge(request: BridgeRequest): Promise<number> {
  const { paths, profiles, session, label, sessionArg, start } = request;
  // stdout carries MCP and nothing else: every log line goes to stderr, which MCP clients keep as the server log.
  const logger = Logger.toStderr(`mcp-serve:${profiles.join(',')}`);
  let forward: (method: string, params: unknown) => void = () => undefined;
  const bridgeFor = (profile: string): McpBridge =>
    new McpBridge({
      profile,
      connect: () => connectOrStart(paths, profile, 'tabmux-mcp-serve', start),
      session,
      label,
      sessionArg,
      logger: profiles.length > 1 ? logger.child(profile) : logger,
      // Loaded only when a daemon cannot be reached or started (it is in the agents' rarely loaded part).
      catalogue: async (asSessionArg) => (await import('../core/router/toolsWithoutBrowser.js')).agentToolsWithoutBrowser({ sessionArg: asSessionArg, logger }),
      onNotification: (method, params) => forward(method, params),
    });
  const [only] = profiles;
  const bridge: ToolBridge =
    profiles.length === 1 && only !== undefined ? bridgeFor(only) : new MultiBridge(profiles.map((name) => ({ name, bridge: bridgeFor(name) })));
  const server = new StdioMcpServer({
    bridge,
    version: tabmuxVersion(),
    sessionArg,
    severalBrowsers: profiles.length > 1,
    logger,
    input: process.stdin,
    output: process.stdout,
    // The bridge relays its client's calls from now on for as long as the client lives; its start has run.
    afterFirstCall: () => optimizeSooner(),
  });
  forward = (method, params) => server.notify(method, params);

  const gone = new Promise<string>((resolve) => {
    const stopWatching = watchClient({ stdin: process.stdin, parentPid: process.ppid, currentParentPid: () => process.ppid }, resolve);
    const onSignal = (signal: NodeJS.Signals): void => {
      stopWatching();
      resolve(`received ${signal}`);
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    process.once('SIGHUP', onSignal);
    server.onclose = () => resolve('the MCP transport closed');
    // A client that died leaves a broken pipe: writing a late response must end the bridge, not crash it.
    process.stdout.once('error', () => resolve('stdout closed'));
  });
  server.start();
  bridge.warmUp();
  const reason = await gone;
  logger.info(`the MCP client is gone (${reason}); closing this bridge's sessions`);
  await bridge.close();
  server.close();
  process.stdin.destroy();
  setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
  return 0;
}
