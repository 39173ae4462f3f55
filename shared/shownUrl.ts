/**
 * The most characters of a page's URL or title that tabmux keeps where it shows or records one (status, the
 * dashboard, `tabmux pages`, the activity log, the session journal, its own log). A page can give itself a URL of
 * megabytes (`history.replaceState`); without a bound every status, change event, log entry and journal write would
 * carry it, and one page would fill the activity log that every session shares. The browser and the daemon's own
 * decisions keep the whole URL.
 */
export const MAX_SHOWN_CHARS = 2048;

/** `text` as shown: whole up to `max` characters, else its start and how much was left out. */
export function shownUrl(text: string, max = MAX_SHOWN_CHARS): string {
  const { start, leftOut } = shownParts(text, max);
  return start + leftOut;
}

/** The part of `text` that is shown, and what says how much was left out ('' for none), for a caller that works on the shown part first (redaction). */
export function shownParts(text: string, max = MAX_SHOWN_CHARS): { start: string; leftOut: string } {
  return text.length <= max ? { start: text, leftOut: '' } : { start: text.slice(0, max), leftOut: `… (${text.length - max} more characters)` };
}
