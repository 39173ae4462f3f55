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
    case 'failed':
      return `Note: a download from your page (${outcome.name}) was not kept: ${outcome.reason}.`;
  }
}

/**
 * Where a session's downloads go (`<files>/<session id>/downloads/`) and how it hears of them: a note in its next
 * result, and a line in the daemon log.
 */
export function sessionDownloads(session: Session, filesDir: string, changed: (session: Session) => void, logger: Logger): DownloadOwner {
  return {
    root: filesDir,
    segments: [session.id, DOWNLOADS_SUBFOLDER],
    tell: (outcome) => {
      logger.info(`session ${session.id}: download ${outcome.kind}${outcome.kind === 'saved' ? ` to ${outcome.path} (${outcome.bytes} bytes)` : ''}`);
      if (session.ended) {
        return;
      }
      session.notes.push(downloadNote(outcome));
      changed(session);
    },
  };
}
