import { z } from 'zod';
import { readFileNoFollow, writeFileNoFollow } from './secureFs.js';

/** A profile daemon's pid file: who holds the profile, and the Chrome it launched (to clean up after a crash). */
const pidFileSchema = z.object({ pid: z.number().int(), chromePid: z.number().int().nullable(), userDataDir: z.string(), startedAt: z.number() });

export type PidFileRecord = z.infer<typeof pidFileSchema>;

/** Reads a pid file without following symlinks; undefined when it is missing or not one of ours. */
export async function readPidFile(path: string): Promise<PidFileRecord | undefined> {
  const text = await readFileNoFollow(path).catch(() => undefined);
  if (!text) {
    return undefined;
  }
  try {
    const parsed = pidFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export async function writePidFile(path: string, record: PidFileRecord): Promise<void> {
  await writeFileNoFollow(path, `${JSON.stringify(record)}\n`);
}
