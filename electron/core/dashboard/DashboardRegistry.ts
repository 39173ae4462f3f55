import { randomBytes } from 'node:crypto';
import { promises as fs, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import type { TabmuxPaths } from '../platform/paths.js';
import { isSameProcessRunning, ownIdentity } from '../process/processState.js';
import { ensureSecureDir, isNodeError, readFileNoFollow, writeFileNoFollow } from '../platform/secureFs.js';

/** One running dashboard, as its file in the runtime dir records it. */
const recordSchema = z.lazy(() => z.object({
  port: z.int().check(z.minimum(1), z.maximum(65_535)),
  pid: z.int().check(z.positive()),
  identity: z.optional(z.string()),
  nonce: z.string(),
}));

const RECORD_NAME = /^(\d{1,5})\.json$/;

/** The folder where each running dashboard records its port; the runtime dir's 0700 keeps it the user's own. */
export function dashboardsDir(paths: TabmuxPaths): string {
  return join(paths.runtimeDir, 'dashboards');
}

/**
 * Where tabmux's dashboards listen, for the daemons: a daemon keeps every tab of its browser away from these ports,
 * as it does from the browser's DevTools port, because a page at a dashboard's origin could use its WebSocket.
 *
 * Each dashboard writes `<port>.json` (its port, its pid and process identity) while it serves, and removes it when
 * it stops. The dashboard may run in another process than the daemons, start before or after them, and several may
 * run at once, so the record is a file in the runtime dir, where agents cannot write (their file tools and `file://`
 * stop at tabmux's folders): a daemon reads it when its browser starts, follows the folder while it runs, and is told
 * to read it again by each supervisor that starts a dashboard. A record whose process is gone (a dashboard that
 * crashed) is ignored from the next read on, so its port, which another program may take, is not refused for good.
 */
export class DashboardRegistry {
  readonly #paths: TabmuxPaths;

  constructor(paths: TabmuxPaths) {
    this.#paths = paths;
  }

  /** Records a dashboard this process serves on `port`; the returned function removes the record again. */
  async register(port: number): Promise<() => Promise<void>> {
    const dir = await this.#ensureDir();
    const nonce = randomBytes(12).toString('hex');
    const identity = ownIdentity();
    const record = { port, pid: process.pid, nonce, ...(identity === undefined ? {} : { identity }) };
    // Written aside and renamed into place, so a daemon never reads half a record.
    const path = join(dir, `${port}.json`);
    const staging = join(dir, `.${port}-${nonce}.new`);
    await writeFileNoFollow(staging, `${JSON.stringify(record)}\n`);
    await fs.rename(staging, path);
    return async () => {
      // Only this dashboard's own record: another may have taken the port since this one stopped listening.
      if ((await readRecord(path))?.nonce === nonce) {
        await fs.rm(path, { force: true });
      }
    };
  }

  /** The ports of the dashboards running now, sorted. */
  async ports(): Promise<number[]> {
    let names: string[];
    try {
      names = await fs.readdir(dashboardsDir(this.#paths));
    } catch (error) {
      if (isNodeError(error) && error.code === 'ENOENT') {
        return [];
      }
      throw error;
    }
    const ports = new Set<number>();
    for (const name of names) {
      const match = RECORD_NAME.exec(name);
      if (!match) {
        continue;
      }
      const record = await readRecord(join(dashboardsDir(this.#paths), name));
      if (record !== undefined && String(record.port) === match[1] && isSameProcessRunning(record.pid, record.identity)) {
        ports.add(record.port);
      }
    }
    return [...ports].sort((a, b) => a - b);
  }

  /**
   * Calls `changed` whenever a record is written or removed. The folder is created first, so a daemon started before
   * any dashboard still hears of the first one.
   */
  async watch(changed: () => void): Promise<{ close: () => void }> {
    const dir = await this.#ensureDir();
    let watcher: FSWatcher | undefined;
    try {
      watcher = watch(dir, { persistent: false }, () => changed());
    } catch {
      // No file watching here (a file system without it): the supervisors' calls and each browser start still tell.
      return { close: () => undefined };
    }
    watcher.on('error', () => watcher?.close());
    return { close: () => watcher?.close() };
  }

  async #ensureDir(): Promise<string> {
    await ensureSecureDir(this.#paths.runtimeDir);
    const dir = dashboardsDir(this.#paths);
    await ensureSecureDir(dir);
    return dir;
  }
}

async function readRecord(path: string): Promise<z.output<typeof recordSchema> | undefined> {
  let text: string | undefined;
  try {
    text = await readFileNoFollow(path);
  } catch {
    return undefined;
  }
  if (text === undefined) {
    return undefined;
  }
  try {
    const parsed = recordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
