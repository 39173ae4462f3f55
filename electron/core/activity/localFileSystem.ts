import { promises as fs } from 'node:fs';

/**
 * Linux file systems on a local disk or in memory, by the magic number statfs reports: a write to one of them goes to
 * the page cache and returns in microseconds, whatever the disk below is doing. Network and user-space file systems
 * (NFS, SMB, FUSE, 9p) are left out on purpose: a write there can wait on a server that is gone.
 */
const LOCAL_FILE_SYSTEMS: ReadonlySet<number> = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs (containers)
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
]);

/**
 * Whether `path` is on a local file system (Linux only; false elsewhere, and when it cannot be told), where a small
 * write can be made from the event loop itself rather than through libuv's thread pool.
 */
export async function isLocalFileSystem(path: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  if (platform !== 'linux') {
    return false;
  }
  try {
    return LOCAL_FILE_SYSTEMS.has((await fs.statfs(path)).type);
  } catch {
    return false;
  }
}
