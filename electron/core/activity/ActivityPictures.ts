import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { isNodeError } from '../platform/secureFs.js';
import type { RetentionSettings } from './RetentionSettings.js';

const NAME = /^[\w-]+\.jpg$/;

/**
 * The activity log's pictures: one small JPEG per page-changing call, in `pictures/` beside the log's segments
 * (folder 0700, files 0600, never written through a link). They share the log's age limit and may take a fifth of
 * its size limit; the oldest go first.
 */
export class ActivityPictures {
  readonly dir: string;
  readonly #retention: RetentionSettings;
  readonly #now: () => number;

  constructor(logDir: string, retention: RetentionSettings, now: () => number = Date.now) {
    this.dir = join(logDir, 'pictures');
    this.#retention = retention;
    this.#now = now;
  }

  async save(name: string, jpeg: Buffer): Promise<void> {
    if (!NAME.test(name)) {
      throw new Error(`not a picture name: ${name}`);
    }
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    // O_EXCL: a name is written once, and never through something already there.
    await fs.writeFile(join(this.dir, name), jpeg, { mode: 0o600, flag: 'wx' });
  }

  /** The picture's bytes, or undefined when there is none (never taken, or trimmed since). */
  async read(name: string): Promise<Buffer | undefined> {
    if (!NAME.test(name)) {
      return undefined;
    }
    try {
      const handle = await fs.open(join(this.dir, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ELOOP')) {
        return undefined;
      }
      throw error;
    }
  }

  /** Removes pictures past the age limit, then the oldest until the rest fit in a fifth of the size limit. */
  async retain(): Promise<void> {
    let names: string[];
    try {
      names = (await fs.readdir(this.dir)).filter((name) => NAME.test(name));
    } catch (error) {
      if (isNodeError(error) && error.code === 'ENOENT') {
        return;
      }
      throw error;
    }
    const files = await Promise.all(
      names.map(async (name) => {
        const { size, mtimeMs } = await fs.stat(join(this.dir, name));
        return { name, size, mtimeMs };
      }),
    );
    files.sort((a, b) => b.mtimeMs - a.mtimeMs);
    const cutoff = this.#now() - this.#retention.maxAgeMs;
    const budget = Math.floor(this.#retention.maxBytes / 5);
    let total = 0;
    for (const file of files) {
      total += file.size;
      if (file.mtimeMs < cutoff || total > budget) {
        await fs.rm(join(this.dir, file.name), { force: true });
      }
    }
  }
}
