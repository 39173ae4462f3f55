import { REDACTED, redactUrlsIn } from './redactUrl.js';

/** Shorter values are not cut out of answers: a one-key press would blank every such letter of the page. */
const MIN_SECRET_LENGTH = 4;

export const SUMMARY_CHARS = 200;

/**
 * How far past the kept part the text is read, so that a URL that starts inside it is redacted whole; a longer URL
 * reaching past this is replaced whole (see `redactUrlsIn`).
 */
const URL_LOOKAHEAD = 4096;

/**
 * The start of an answer as the log keeps it: values the session typed (and that were redacted from its arguments)
 * are cut out first, then every URL in it is redacted, then the text is cut to `max` characters, so the cut can leave
 * neither half a value nor half a URL behind.
 */
export function summaryOf(text: string, secrets: readonly string[], max = SUMMARY_CHARS): string {
  const ordered = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  const until = Math.min(text.length, max + URL_LOOKAHEAD);
  const cutOff = until < text.length;
  const out = redactUrlsIn(cutSecrets(text, ordered, until), cutOff).text;
  return out.length > max || cutOff ? `${out.slice(0, max)}…` : out;
}

/**
 * `text` up to `until`, with every value that starts before `until` replaced, also one that ends past it (the
 * earliest first, the longest of those starting at one place); nothing past `until` is kept.
 */
function cutSecrets(text: string, ordered: readonly string[], until: number): string {
  const window = text.slice(0, until + (ordered[0]?.length ?? 0));
  let out = '';
  let at = 0;
  while (at < until) {
    let found: { index: number; length: number } | undefined;
    for (const secret of ordered) {
      const index = window.indexOf(secret, at);
      if (index !== -1 && index < until && (found === undefined || index < found.index)) {
        found = { index, length: secret.length };
      }
    }
    if (!found) {
      return out + window.slice(at, until);
    }
    out += window.slice(at, found.index) + REDACTED;
    at = found.index + found.length;
  }
  return out;
}
