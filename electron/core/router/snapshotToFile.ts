import type { ToolResult } from '../../../shared/protocol.js';
import { joinReply, replyOf } from '../upstream/upstreamReply.js';
import { withText } from './responseRewriter.js';
import type { OwnedPage, Session } from './Session.js';
import { withExtension, writeSessionFile } from './sessionFiles.js';
import { formatToken } from './uidTokens.js';
import type { Worker } from './Worker.js';

/**
 * A snapshot saved to a file: the router takes it inline and writes the file itself, tokens included, to the path
 * upstream would have written (`.txt`), never through a symbolic link. The file's tokens are the session's current
 * ones. `rewrite` turns a reply with no snapshot to save (an error) into what the session may see.
 */
export async function snapshotToFile(
  session: Session,
  worker: Worker,
  page: OwnedPage,
  args: Record<string, unknown>,
  filePath: string,
  rewrite: (result: ToolResult) => ToolResult,
): Promise<ToolResult> {
  const inline = { ...args };
  delete inline['filePath'];
  const result = await worker.call('take_snapshot', { ...inline, pageId: page.pageId });
  const reply = replyOf(result);
  if (result.isError || !reply.snapshot) {
    return rewrite(result);
  }
  const { rendering } = reply.snapshot;
  const epoch = session.newEpoch(page, new Set(rendering.treeIds));
  const path = withExtension(filePath, '.txt');
  await writeSessionFile(path, rendering.withIds((raw) => formatToken(session.short, epoch, raw)));
  return withText(result, joinReply([reply.head, `Saved snapshot to ${path}.`]));
}
