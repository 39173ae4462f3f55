import * as z from 'zod/mini';
import '../../../shared/zodMessages.js';
import { readFileNoFollow } from '../platform/secureFs.js';

/**
 * What a running daemon keeps in its profile's pid file: its own pid, its Chrome's (so a successor can adopt it, or
 * clean up, after a daemon that was killed), the user-data-dir that Chrome uses, and when the daemon started. The
 * file is also the daemon's claim on the profile (process/ClaimFile.ts), which adds the daemon's process identity and
 * a claim id.
 */
export const daemonPidFileSchema = z.lazy(() => z.object({
  pid: z.int(),
  chromePid: z.nullable(z.int()),
  userDataDir: z.string(),
  /** Chrome's DevTools port and the pid of its watchdog, so a successor can adopt that Chrome (findOrphanChrome). */
  chromePort: z.optional(z.nullable(z.int())),
  watchdogPid: z.optional(z.nullable(z.int())),
  startedAt: z.number(),
}));

export type DaemonPidFile = z.infer<typeof daemonPidFileSchema>;

/**
 * Reads a pid file without following a symlink. Undefined when there is none, or it is unreadable or malformed:
 * every reader treats those the same way, as "no daemon claims this profile".
 */
export async function readDaemonPidFile(file: string): Promise<DaemonPidFile | undefined> {
  const text = await readFileNoFollow(file).catch(() => undefined);
  if (!text) {
    return undefined;
  }
  try {
    const parsed = daemonPidFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
