import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { TabmuxError } from '../../shared/errors.js';
import { SESSION_ID_PATTERN } from '../../shared/protocol.js';
import { createBridgeServer, forwardNotification } from '../core/bridge/createBridgeServer.js';
import { McpBridge } from '../core/bridge/McpBridge.js';
import { watchClient } from '../core/bridge/watchClient.js';
import { Logger } from '../core/Logger.js';
import { tabmuxVersion } from '../core/version.js';
import { boolOption, stringOption, type Command } from './Command.js';
import { connectOrStart, type StartOptions } from '../core/daemonProcess.js';

/** After a clean shutdown, anything still holding the event loop open must not keep an orphan alive. */
const EXIT_GRACE_MS = 1_000;

export const mcpServe: Command = {
  words: ['mcp', 'serve'],
  usage: 'tabmux mcp serve [--profile NAME] [--session ID] [--label TEXT] [--session-arg] [--chrome PATH] [--headless]',
  summary: "MCP server on stdio for an agent: its own session and tab in the profile's shared Chrome (starts the daemon if needed)",
  options: {
    session: { type: 'string', short: 's' },
    label: { type: 'string' },
    'session-arg': { type: 'boolean' },
    chrome: { type: 'string' },
    headless: { type: 'boolean' },
  },
  run: async (context) => {
    const session = stringOption(context.values, 'session');
    if (session !== undefined && !SESSION_ID_PATTERN.test(session)) {
      throw new TabmuxError('invalid_params', `--session must be a session id like sess-0123456789abcdef (see tabmux session list), got ${session}`);
    }
    const label = stringOption(context.values, 'label');
    if (label !== undefined && (label.length === 0 || label.length > 200)) {
      throw new TabmuxError('invalid_params', '--label must be 1 to 200 characters');
    }
    const sessionArg = boolOption(context.values, 'session-arg');
    const start: StartOptions = {};
    const chrome = stringOption(context.values, 'chrome');
    if (chrome !== undefined) {
      start.chrome = chrome;
    }
    if (boolOption(context.values, 'headless')) {
      start.headless = true;
    }
    // stdout carries MCP and nothing else: every log line goes to stderr, which MCP clients keep as the server log.
    const logger = Logger.toStderr(`mcp-serve:${context.profile}`);
    const { paths, profile } = context;
    let forward: (method: string, params: unknown) => void = () => undefined;
    const bridge = new McpBridge({
      profile,
      connect: () => connectOrStart(paths, profile, 'tabmux-mcp-serve', start),
      session,
      label,
      sessionArg,
      logger,
      onNotification: (method, params) => forward(method, params),
    });
    const server = createBridgeServer(bridge, { version: tabmuxVersion(), sessionArg, logger });
    forward = (method, params) => forwardNotification(server, method, params);

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
    await server.connect(new StdioServerTransport());
    bridge.warmUp();
    const reason = await gone;
    logger.info(`the MCP client is gone (${reason}); closing this bridge's sessions`);
    await bridge.close();
    await server.close().catch(() => undefined);
    process.stdin.destroy();
    setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
    return 0;
  },
};
