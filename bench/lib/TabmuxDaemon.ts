import { Daemon } from '../../electron/core/daemon/Daemon.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import type { DaemonStatus } from '../../shared/model.js';
import type { ProfileConfig } from '../../electron/core/profile/ProfileStore.js';
import { asToolResult } from '../../shared/toolResult.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { makeBenchHome } from './benchHome.js';
import type { Teardown } from './Teardown.js';
import type { CallTool } from './toolCalls.js';

export interface BoundSession {
  id: string;
  call: CallTool;
}

/**
 * The measured side: a real profile daemon (its own headless Chrome, its upstream workers, the router) in this
 * process, reached only through its Unix socket with the same client the CLI and the stdio bridge use.
 */
export class TabmuxDaemon {
  readonly daemon: Daemon;
  /** TABMUX_HOME of this daemon, for CLI processes (`tabmux mcp serve`) that must reach it. */
  readonly env: Readonly<Record<string, string>>;
  readonly #teardown: Teardown;

  private constructor(daemon: Daemon, env: Readonly<Record<string, string>>, teardown: Teardown) {
    this.daemon = daemon;
    this.env = env;
    this.#teardown = teardown;
  }

  /**
   * `config` is the profile's configuration, as a user would write it: a setting it leaves out (the pool size
   * `workers`, `callTimeoutMs`, ...) takes the daemon's default, so `{}` measures tabmux as installed. Only
   * headless is forced.
   */
  static async start(teardown: Teardown, config: ProfileConfig = {}): Promise<TabmuxDaemon> {
    const { paths, env } = makeBenchHome(teardown);
    const logger = process.env['TABMUX_BENCH_LOG'] ? Logger.toStderr('bench-daemon', 'debug') : Logger.silent();
    const daemon = await Daemon.start({ paths, profile: { name: 'default', config: { ...config, headless: true } }, logger, headless: true });
    teardown.add('stop daemon', () => daemon.stop());
    return new TabmuxDaemon(daemon, env, teardown);
  }

  /** A new connection bound to a new session, as an agent's MCP client would hold it. */
  async session(label: string): Promise<BoundSession> {
    const client = await DaemonClient.connect(this.daemon.socketPath, 'tabmux-bench');
    this.#teardown.add('close bench connection', () => client.close());
    const info = await client.call('tabmux/session.create', { label });
    await client.call('tabmux/session.bind', { session: info.id });
    return { id: info.id, call: async (name, args) => asToolResult(await client.request('tools/call', { name, arguments: args })) };
  }

  /** Upstream worker pids as the daemon reports them; a worker that has not started yet has none. */
  workerPids(): number[] {
    return workerPidsOf(this.daemon.status());
  }
}

/** The upstream worker pids a daemon's status reports; a worker that has not started yet has none. */
export function workerPidsOf(status: DaemonStatus): number[] {
  return status.workers.map((worker) => worker.pid).filter((pid): pid is number => pid !== null);
}
