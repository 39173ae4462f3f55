import { readFile, writeFile } from 'node:fs/promises';
import type { OwnedPage, Session } from './Session.js';
import { formatToken } from './uidTokens.js';
import { rewriteOutputUids, snapshotUids } from './upstreamText.js';

/**
 * A snapshot upstream saved to a file gets a new epoch and session tokens, like one returned inline. A file that
 * cannot be read (upstream refused the path, say) is left alone: upstream's answer already tells the agent.
 */
export async function rewriteSnapshotFile(session: Session, page: OwnedPage, filePath: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch {
    return;
  }
  const epoch = session.newEpoch(page, snapshotUids(text));
  await writeFile(filePath, rewriteOutputUids(text, (raw) => formatToken(session.short, epoch, raw)));
}
