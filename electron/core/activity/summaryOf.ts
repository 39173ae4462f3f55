import { REDACTED } from './redactUrl.js';

/** Shorter values are not cut out of answers: a one-key press would blank every such letter of the page. */
const MIN_SECRET_LENGTH = 4;

export const SUMMARY_CHARS = 200;

/**
 * The start of an answer as the log keeps it: values the session typed (and that were redacted from its arguments)
 * are cut out first, then the text is cut to `max` characters, so the cut cannot leave half a value behind.
 */
export function summaryOf(text: string, secrets: readonly string[], max = SUMMARY_CHARS): string {
  const ordered = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  // Any value that starts inside the kept part ends inside this slice, so scrubbing the slice is enough.
  const cut = max + (ordered[0]?.length ?? 0);
  let out = text.slice(0, cut);
  for (const secret of ordered) {
    out = out.split(secret).join(REDACTED);
  }
  return out.length > max || text.length > cut ? `${out.slice(0, max)}…` : out;
}
