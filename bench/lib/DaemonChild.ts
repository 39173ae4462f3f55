import { spawn, type ChildProcess } from 'node:child_process';
import { socketPath } from '../../electron/core/platform/paths.js';
import { DaemonClient } from '../../electron/core/transport/DaemonClient.js';
import { cliEntryPoint } from '../../electron/core/platform/version.js';
import { daemonEnv } from '../../electron/core/lifecycle/daemonEnv.js';
import type { BenchHome } from './benchHome.js';
import type { Teardown } from './Teardown.js';

/**
 * `tabmux daemon run` as its own process, started as tabmux starts one, so its memory can be read apart from the
 * bench's own heap, Chrome and the upstream workers (each of which is a separate process too).
 */
export class DaemonChild {
  readonly pid: number;
  readonly client: DaemonClient;
  /** Stops the daemon (Chrome and workers with it) before the bench's end; teardown then finds it gone. */
  readonly stop: () => Promise<void>;

  private constructor(pid: number, client: DaemonClient, stop: () => Promise<void>) {
    this.pid = pid;
    this.client = client;
    this.stop = stop;
  }

  /** `nodeFlags` go to Node before the entry point (a diagnostic row runs the daemon with a V8 flag). */
  static async start(teardown: Teardown, home: BenchHome, nodeFlags: readonly string[] = [], timeoutMs = 60_000): Promise<DaemonChild> {
    const child = spawn(process.execPath, [...nodeFlags, cliEntryPoint(), 'daemon', 'run', '--headless'], {
      // The environment tabmux gives the daemons it starts (`daemon start`, an agent's bridge, the tray).
      env: daemonEnv({ ...process.env, ...home.env }),
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stop = (): Promise<void> => stopChild(child, exited);
    teardown.add(`stop daemon process ${String(child.pid)}`, stop);
    const pid = child.pid;
    if (pid === undefined) {
      throw new Error('could not spawn tabmux daemon run');
    }
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) {
        throw new Error(`tabmux daemon run exited with code ${child.exitCode}`);
      }
      const client = await DaemonClient.connect(socketPath(home.paths, 'default'), 'tabmux-bench').catch(() => undefined);
      if (client) {
        teardown.add('close bench connection', () => client.close());
        if ((await client.call('tabmux/status')).state === 'ready') {
          return new DaemonChild(pid, client, async () => {
            client.close();
            await stop();
          });
        }
        client.close();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`tabmux daemon run was not ready within ${timeoutMs} ms`);
  }
}

/** SIGTERM runs the daemon's own shutdown (Chrome and workers included); SIGKILL only if that hangs. */
async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}
