import { TabmuxError } from '../../../shared/errors.js';
import type { OwnedPage, Session } from './Session.js';
import { parseToken } from './uidTokens.js';
import { RAW_UID } from '../upstream/upstreamReply.js';

/**
 * Turns a session's uid token back into upstream's raw uid, refusing anything that is not from this session's latest
 * snapshot of its current page. `field` names the argument in the error, so the agent knows which one to fix.
 * `isLiveShort` tells whether a token's session part names a session that exists now: a token of no live session
 * (an ended one's, or one copied from documentation) is called unknown, not another session's.
 */
export function checkToken(session: Session, current: OwnedPage | undefined, token: string, field: string, isLiveShort: (short: string) => boolean = () => true): string {
  const parsed = parseToken(token);
  if (!parsed) {
    const advice = RAW_UID.test(token) ? 'It looks like a raw upstream uid; use' : 'Use';
    throw new TabmuxError('bad_token', `${field}: ${JSON.stringify(token)} is not a uid token. ${advice} the u:… uids from your latest take_snapshot`);
  }
  // "uid token u:… …" for the usual argument, "from_uid: uid token u:… …" for the others.
  const named = field === 'uid' ? `uid token ${token}` : `${field}: uid token ${token}`;
  if (parsed.short !== session.short && !isLiveShort(parsed.short)) {
    throw new TabmuxError('stale_token', `${named} is stale or unknown: no session has tokens starting u:${parsed.short}; call take_snapshot in this session and use its uids`);
  }
  if (parsed.short !== session.short) {
    throw new TabmuxError('foreign_token', `${named} belongs to another session; call take_snapshot in this session and use its uids`);
  }
  const page = session.pageForEpoch(parsed.epoch);
  if (!page) {
    throw new TabmuxError('stale_token', `${named} is from an older snapshot or the page has navigated since; call take_snapshot again and use the new uids`);
  }
  if (page !== current) {
    throw new TabmuxError('stale_token', `${named} belongs to page ${page.pageId}, not your current page ${String(current?.pageId ?? 'none')}; select_page ${page.pageId} first or take_snapshot here`);
  }
  if (!page.snapshotUids.has(parsed.raw)) {
    throw new TabmuxError('bad_token', `${named} is not in your latest snapshot; call take_snapshot again`);
  }
  return parsed.raw;
}
