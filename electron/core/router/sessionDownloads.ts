import { join } from 'node:path';
import type { DownloadOutcome, DownloadOwner } from '../browser/BrowserDownloads.js';
import type { BrowserTab } from '../browser/BrowserTab.js';
import type { Logger } from '../platform/Logger.js';
import type { Session } from './Session.js';

/**
 * A tab and the tabs that opened it, nearest first, as the browser reports them now (a few steps up): a popup that
 * turned into a download closes soon after, so its chain is taken when the download begins.
 */
export function openerChain(tabs: readonly BrowserTab[], tabId: string): string[] {
  const chain = [tabId];
  for (let step = 0; step < 8; step++) {
    const last = chain[chain.length - 1];
    const opener = tabs.find((tab) => tab.tabId === last)?.openerTabId ?? null;
    if (opener === null || chain.includes(opener)) {
      break;
    }
    chain.push(opener);
  }
  return chain;
}

/** The subfolder of a session's folder that holds its downloads. */
export const DOWNLOADS_SUBFOLDER = 'downloads';

/** What the agent reads in its next result about one of its downloads. */
export function downloadNote(outcome: DownloadOutcome): string {
  switch (outcome.kind) {
    case 'saved':
      return `Note: a download from your page (${outcome.name}, ${outcome.bytes} bytes) was saved to ${outcome.path}, in your session folder, where file tools can use it.`;
    case 'refused':
      return outcome.why === 'off'
        ? `Note: your page started a download (${outcome.name}); downloads are turned off for this profile, so it was refused.`
        : `Note: your page started a download (${outcome.name}); in a browser tabmux did not launch, it cannot keep downloads in your session folder, so the download was cancelled.`;
    case 'too_large':
      return `Note: a download from your page (${outcome.name}) was cancelled at ${outcome.maxBytes} bytes, the most one download may write in this profile; nothing of it was kept.`;
    case 'over_limit': {
      const limit = outcome.limit === 'files' ? `${outcome.maxFiles} files` : `${outcome.maxBytes} bytes`;
      return (
        `Note: a download from your page (${outcome.name}) was not kept: your session folder already holds as many downloads as one session may keep ` +
        `(${limit} in this profile). Further downloads of this session are not kept either, and you are not told of each.`
      );
    }
    case 'failed':
      return `Note: a download from your page (${outcome.name}) was not kept: ${outcome.reason}.`;
  }
}

/** How many notes about downloads wait for one result at most; the rest are counted in one more line. */
export const MAX_DOWNLOAD_NOTES = 5;

const MORE_DOWNLOADS = 'Note: and ';
const MORE_DOWNLOADS_TAIL = ' from your page; what was kept is in ';

/**
 * Adds a download's note to those the session's next result carries: up to MAX_DOWNLOAD_NOTES of them, then one line
 * that counts the others (a page can start downloads far faster than an agent reads results).
 */
function addDownloadNote(session: Session, note: string, folder: string): void {
  const notes = session.notes;
  const waiting = notes.filter((line) => line.startsWith('Note: a download') || line.startsWith('Note: your page started a download')).length;
  if (waiting < MAX_DOWNLOAD_NOTES) {
    notes.push(note);
    return;
  }
  const at = notes.findIndex((line) => line.startsWith(MORE_DOWNLOADS) && line.includes(MORE_DOWNLOADS_TAIL));
  const more = at === -1 ? 1 : Number(/\d+/.exec(notes[at] ?? '')?.[0] ?? '0') + 1;
  const line = `${MORE_DOWNLOADS}${more} more download${more === 1 ? '' : 's'}${MORE_DOWNLOADS_TAIL}${folder}.`;
  if (at === -1) {
    notes.push(line);
  } else {
    notes[at] = line;
  }
}

/**
 * Where a session's downloads go (`<files>/<session id>/downloads/`) and how it hears of them: a note in its next
 * result, and a line in the daemon log. Past a limit of the session's it hears of it once.
 */
export function sessionDownloads(session: Session, filesDir: string, changed: (session: Session) => void, logger: Logger): DownloadOwner {
  return {
    root: filesDir,
    segments: [session.id, DOWNLOADS_SUBFOLDER],
    tally: session.downloads,
    tell: (outcome) => {
      if (outcome.kind === 'over_limit') {
        if (session.downloadLimitTold) {
          return;
        }
        session.downloadLimitTold = true;
      }
      logger.info(`session ${session.id}: download ${outcome.kind}${outcome.kind === 'saved' ? ` to ${outcome.path} (${outcome.bytes} bytes)` : ''}`);
      if (session.ended) {
        return;
      }
      addDownloadNote(session, downloadNote(outcome), join(filesDir, session.id, DOWNLOADS_SUBFOLDER));
      changed(session);
    },
  };
}
