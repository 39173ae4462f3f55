import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ActivityPictures } from './ActivityPictures.js';

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) {
    rmSync(root, { recursive: true, force: true });
  }
});

function pictures(maxBytes = 50_000, maxAgeMs = 3600_000): ActivityPictures {
  const root = mkdtempSync(join(tmpdir(), 'tmx-pictures-'));
  roots.push(root);
  return new ActivityPictures(root, { maxBytes, maxAgeMs });
}

describe('ActivityPictures', () => {
  it('writes a picture once, 0600 in a 0700 folder, and reads it back', async () => {
    const store = pictures();
    await store.save('a1-0.jpg', Buffer.from([0xff, 0xd8, 0xff, 1]));
    expect(await store.read('a1-0.jpg')).toEqual(Buffer.from([0xff, 0xd8, 0xff, 1]));
    expect(statSync(join(store.dir, 'a1-0.jpg')).mode & 0o777).toBe(0o600);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    await expect(store.save('a1-0.jpg', Buffer.from([2]))).rejects.toThrow(/EEXIST/);
    expect(await store.read('missing.jpg')).toBeUndefined();
  });

  it('takes only plain names, and never reads through a link', async () => {
    const store = pictures();
    await expect(store.save('../escape.jpg', Buffer.from([1]))).rejects.toThrow(/not a picture name/);
    expect(await store.read('../../etc/passwd')).toBeUndefined();
    await store.save('real.jpg', Buffer.from([1]));
    const secret = join(store.dir, '..', 'secret.txt');
    writeFileSync(secret, 'secret');
    symlinkSync(secret, join(store.dir, 'link.jpg'));
    expect(await store.read('link.jpg')).toBeUndefined();
  });

  it('removes pictures past the age limit, then the oldest past a fifth of the size limit', async () => {
    const store = pictures(10_000, 3600_000);
    const now = Date.now();
    for (const [name, ageMs] of [['old.jpg', 2 * 3600_000], ['b.jpg', 3000], ['c.jpg', 2000], ['d.jpg', 1000]] as const) {
      await store.save(name, Buffer.alloc(800));
      const at = new Date(now - ageMs);
      utimesSync(join(store.dir, name), at, at);
    }
    await store.retain();
    // 2,000 bytes fit: the two newest stay.
    expect(readdirSync(store.dir).sort()).toEqual(['c.jpg', 'd.jpg']);
  });
});
