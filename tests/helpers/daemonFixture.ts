import { Daemon } from '../../electron/core/daemon/Daemon.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import type { ProfileConfig } from '../../electron/core/profile/ProfileStore.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { asToolResult, textOf } from '../../shared/toolResult.js';
import type { ToolResult } from '../../shared/protocol.js';
import { recordDaemonLog } from './daemonLogOnFailure.js';
import { makeTestHome, reuseTestHome } from './testHome.js';
import { waitUntil } from './waitFor.js';

export interface TestDaemon {
  daemon: Daemon;
  home: string;
  /** A new connection that said hello. */
  connect: () => Promise<DaemonClient>;
  /** A new connection bound to a new session. */
  session: (label?: string) => Promise<BoundSession>;
  /** Stops the daemon; its TABMUX_HOME is removed unless `keepHome` (for a restart on the same home). */
  stop: (keepHome?: boolean) => Promise<void>;
  /** The lines the daemon logged at warn level and above so far, as its log file would hold them. */
  warnings: () => readonly string[];
  /** Every line the daemon logged at info level and above so far, as its log file would hold them. */
  logged: () => readonly string[];
}

export interface TestDaemonOptions {
  /** Start on this existing TABMUX_HOME (a restart): its config, profile and Chrome data are used as they are. */
  home?: string;
}

export interface BoundSession {
  id: string;
  short: string;
  client: DaemonClient;
  call: (tool: string, args?: Record<string, unknown>) => Promise<ToolResult>;
  /** Calls a tool and returns its text, failing the test on a tool error. */
  text: (tool: string, args?: Record<string, unknown>) => Promise<string>;
}

/**
 * A real daemon in this process: real Chromium (headless), real chrome-devtools-mcp, real Unix socket. Tests talk
 * to it only through the socket, like any client.
 */
export async function startTestDaemon(config: ProfileConfig = {}, options: TestDaemonOptions = {}): Promise<TestDaemon> {
  return startOnHome(options.home === undefined ? makeTestHome() : reuseTestHome(options.home), config);
}

async function startOnHome(testHome: ReturnType<typeof makeTestHome>, config: ProfileConfig): Promise<TestDaemon> {
  const { home, paths, cleanup } = testHome;
  // Warnings are kept for the tests that wait on what the daemon did to a client it gave up on; info lines and above
  // go with a failed test's report (see daemonLogOnFailure.ts); TABMUX_TEST_LOG shows every line as well.
  const warnings: string[] = [];
  const logged: string[] = [];
  const verbose = process.env['TABMUX_TEST_LOG'] !== undefined && process.env['TABMUX_TEST_LOG'] !== '';
  const logger = new Logger(
    'test',
    (line) => {
      if (verbose) {
        process.stderr.write(line);
      }
      recordDaemonLog(line);
      if (!/ DEBUG /.test(line)) {
        logged.push(line);
      }
      if (/ (WARN|ERROR) /.test(line)) {
        warnings.push(line);
      }
    },
    verbose ? 'debug' : 'info',
  );
  const daemon = await Daemon.start({ paths, profile: { name: 'default', config: { headless: true, ...config } }, logger, headless: true });
  const clients: DaemonClient[] = [];
  const connect = async (): Promise<DaemonClient> => {
    const client = await DaemonClient.connect(daemon.socketPath, 'test');
    clients.push(client);
    return client;
  };
  return {
    daemon,
    home,
    connect,
    session: async (label) => {
      const client = await connect();
      const info = await client.call('tabmux/session.create', label === undefined ? {} : { label });
      await client.call('tabmux/session.bind', { session: info.id });
      return bindSession(client, info.id);
    },
    stop: async (keepHome = false) => {
      for (const client of clients) {
        client.close();
      }
      await daemon.stop();
      if (!keepHome) {
        cleanup();
      }
    },
    warnings: () => warnings,
    logged: () => logged,
  };
}

/** Until the daemon reports a call of the session in this state in its queue, as `tabmux/status` tells it. */
export function untilCall(client: DaemonClient, sessionId: string, state: 'running' | 'queued'): Promise<void> {
  return waitUntil(
    async () => (await client.call('tabmux/status')).queue.some((entry) => entry.sessionId === sessionId && entry.state === state),
    `a call of session ${sessionId} to be ${state}`,
  );
}

export function bindSession(client: DaemonClient, id: string): BoundSession {
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<ToolResult> =>
    asToolResult(await client.request('tools/call', { name: tool, arguments: args }));
  return {
    id,
    short: id.slice(5, 13),
    client,
    call,
    text: async (tool, args) => {
      const result = await call(tool, args);
      const text = textOf(result);
      if (result.isError) {
        throw new Error(`${tool} failed: ${text}`);
      }
      return text;
    },
  };
}

/** The uid token of the first snapshot line with this role (and name, if given). */
export function uidOf(snapshot: string, role: string, name?: string): string {
  for (const line of snapshot.split('\n')) {
    const match = /uid=(\S+) (\S+)(?: "([^"]*)")?/.exec(line);
    if (match?.[1] && match[2] === role && (name === undefined || match[3] === name)) {
      return match[1];
    }
  }
  throw new Error(`no ${role} ${name ?? ''} in snapshot:\n${snapshot}`);
}

/** Page ids in a `## Pages` list, and which one is marked selected. */
export function pagesOf(text: string): { ids: number[]; selected: number | undefined } {
  const section = text.split('## Pages')[1] ?? '';
  const ids: number[] = [];
  let selected: number | undefined;
  for (const line of section.split('\n')) {
    const match = /^(\d+): /.exec(line);
    if (match?.[1]) {
      const id = Number(match[1]);
      ids.push(id);
      if (line.includes('[selected]')) {
        selected = id;
      }
    }
  }
  return { ids, selected };
}

export function html(body: string, title = 'Test'): string {
  return `data:text/html,${encodeURIComponent(`<!doctype html><title>${title}</title>${body}`)}`;
}
