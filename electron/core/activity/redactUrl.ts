/** Query parameter and argument names that can carry a credential. */
export const SENSITIVE_NAME = /pass|pwd|secret|token|auth|key|cookie|session|credential|signature|sig$|code$|bearer|header|value|text/i;

export const REDACTED = '[redacted]';

export interface Redacted {
  text: string;
  /** Every value taken out, as written and decoded, so it can be cut out of answers too. */
  secrets: string[];
}

/** URLs inside URLs (a `redirect_uri` holding a callback with its own token) are followed this deep. */
const MAX_DEPTH = 3;
/** Schemes whose body is content rather than an address (a document, a script): only URLs written inside it are. */
const CONTENT_SCHEMES: ReadonlySet<string> = new Set(['data:', 'javascript:']);
/** Characters of a URL's scheme after its first letter. */
const SCHEME_CHAR = /[a-z0-9+.-]/i;
const LETTER = /[a-z]/i;
/** The rest of a URL after its colon, up to white space or what cannot be in a URL a browser prints. */
const URL_BODY = /[^\s"'<>`\\]+/y;
/** Punctuation that ends a sentence rather than the URL before it. */
const TRAILING = '.,;:!?';

/**
 * A URL as the activity log keeps it, parsed as browsers do (WHATWG): its user info (name and password), and the
 * values of parameters whose names can carry a credential (`token`, `access_key`, `sig`, `id_token`, ...) in its
 * query, its fragment (`#access_token=...&id_token=...`, `#/route?code=...`) and its path (`;jsessionid=...`), are
 * replaced; names are matched percent-decoded. A parameter whose value is itself a URL (`redirect_uri=...`) has that
 * URL redacted in turn. `blob:`, `view-source:` and other URLs wrapped around a URL redact the inner one; `data:` and
 * `javascript:` URLs are content, and only URLs written inside them are redacted. Anything that does not parse as a
 * URL is kept as written: it is not something a browser would load.
 */
export function redactUrl(url: string): { url: string; secrets: string[] } {
  const out = redactOneUrl(url, 0);
  return { url: out.text, secrets: out.secrets };
}

/**
 * Text with every URL in it redacted as `redactUrl` does (an answer, an error message, a script an agent wrote).
 * `cutOff`: the text is the start of a longer one, so a URL that reaches its end may be missing its rest; such a URL is
 * replaced whole, since what a cut URL's parts are cannot be told.
 */
export function redactUrlsIn(text: string, cutOff = false): Redacted {
  return redactText(text, 0, cutOff);
}

function redactText(text: string, depth: number, cutOff: boolean): Redacted {
  const secrets: string[] = [];
  let out = '';
  let at = 0;
  for (const match of urlsIn(text)) {
    const start = match.index;
    const candidate = trimTrailing(match.text);
    const end = start + candidate.length;
    let replacement: string;
    if (cutOff && start + match.text.length === text.length) {
      replacement = REDACTED;
    } else {
      const redacted = redactOneUrl(candidate, depth);
      replacement = redacted.text;
      secrets.push(...redacted.secrets);
    }
    out += text.slice(at, start) + replacement;
    at = end;
  }
  return at === 0 ? { text, secrets } : { text: out + text.slice(at), secrets };
}

/**
 * The URLs in a text, leftmost first: a scheme (a letter, then letters, digits, `+`, `.` or `-`), a colon, and
 * everything up to the end of the URL (see URL_BODY). Found from each colon, in one pass over the text: a text of any
 * length and shape (a script of megabytes, a long run of letters) costs time in proportion to its length.
 */
function* urlsIn(text: string): Generator<{ index: number; text: string }> {
  let from = 0;
  for (let colon = text.indexOf(':', from); colon !== -1; colon = text.indexOf(':', from)) {
    let first = colon;
    while (first > from && SCHEME_CHAR.test(text[first - 1] ?? '')) {
      first--;
    }
    while (first < colon && !LETTER.test(text[first] ?? '')) {
      first++;
    }
    URL_BODY.lastIndex = colon + 1;
    const end = colon + 1 + (URL_BODY.exec(text)?.[0].length ?? 0);
    if (first === colon || end === colon + 1) {
      from = colon + 1;
      continue;
    }
    yield { index: first, text: text.slice(first, end) };
    from = end;
  }
}

/** Drops sentence punctuation and closing brackets the URL did not open: `(see https://x/?a=1).` */
function trimTrailing(candidate: string): string {
  const open = { ')': count(candidate, '('), ']': count(candidate, '[') };
  let close = { ')': count(candidate, ')'), ']': count(candidate, ']') };
  let end = candidate.length;
  for (;;) {
    const last = candidate[end - 1] ?? '';
    if (end > 0 && TRAILING.includes(last)) {
      end--;
    } else if ((last === ')' || last === ']') && open[last] < close[last]) {
      close = { ...close, [last]: close[last] - 1 };
      end--;
    } else {
      return candidate.slice(0, end);
    }
  }
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

/**
 * What anything `redactOneUrl` replaces is delimited by: user info ends at `@`, a query starts at `?`, a fragment at
 * `#`, path parameters at `;` (and a URL inside a content URL or a parameter is one with these too). A URL with none of
 * them (`about:blank`, `https://example.com/a/b`: most page URLs) is kept as written without being parsed.
 */
const MAY_HOLD_SECRETS = /[@?#;]/;

function redactOneUrl(url: string, depth: number): Redacted {
  if (depth > MAX_DEPTH || !MAY_HOLD_SECRETS.test(url)) {
    return { text: url, secrets: [] };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { text: url, secrets: [] };
  }
  const colon = url.indexOf(':');
  if (CONTENT_SCHEMES.has(parsed.protocol)) {
    const body = redactText(url.slice(colon + 1), depth + 1, false);
    return { text: url.slice(0, colon + 1) + body.text, secrets: body.secrets };
  }
  const rest = parsed.href.slice(parsed.protocol.length);
  if (!rest.startsWith('//') && depth < MAX_DEPTH && /^[a-z][a-z0-9+.-]*:/i.test(rest)) {
    // An opaque path that is a URL itself (`blob:https://...`, `view-source:https://...`); its query and fragment
    // were parsed as the outer URL's, and belong to the inner one.
    const inner = redactOneUrl(rest, depth + 1);
    return inner.secrets.length === 0 ? { text: url, secrets: [] } : { text: parsed.protocol + inner.text, secrets: inner.secrets };
  }
  const secrets: string[] = [];
  for (const part of ['username', 'password'] as const) {
    if (parsed[part] !== '') {
      secrets.push(...forms(parsed[part]));
      parsed[part] = 'redacted';
    }
  }
  const query = redactParams(parsed.search.slice(1), '&', depth);
  if (query.secrets.length > 0) {
    parsed.search = query.text;
    secrets.push(...query.secrets);
  }
  const fragment = redactFragment(parsed.hash.slice(1), depth);
  if (fragment.secrets.length > 0) {
    parsed.hash = fragment.text;
    secrets.push(...fragment.secrets);
  }
  if (!rest.startsWith('//') || !parsed.pathname.includes(';')) {
    return secrets.length === 0 ? { text: url, secrets } : { text: parsed.href, secrets };
  }
  const path = parsed.pathname.split('/').map((segment) => redactParams(segment, ';', depth));
  if (path.some((segment) => segment.secrets.length > 0)) {
    parsed.pathname = path.map((segment) => segment.text).join('/');
    secrets.push(...path.flatMap((segment) => segment.secrets));
  }
  return secrets.length === 0 ? { text: url, secrets } : { text: parsed.href, secrets };
}

/** A fragment is parameters (`access_token=...&state=...`), or a client-side route with a query (`/cb?code=...`). */
function redactFragment(fragment: string, depth: number): Redacted {
  const question = fragment.indexOf('?');
  if (question === -1) {
    return redactParams(fragment, '&', depth);
  }
  const params = redactParams(fragment.slice(question + 1), '&', depth);
  return { text: fragment.slice(0, question + 1) + params.text, secrets: params.secrets };
}

/**
 * `name=value` pairs joined by `separator`, as written (percent-encoded): the values of sensitive names are replaced
 * and every other pair is kept byte for byte, apart from a URL inside a value, which is redacted in turn.
 */
function redactParams(text: string, separator: string, depth: number): Redacted {
  if (!text.includes('=')) {
    return { text, secrets: [] };
  }
  const secrets: string[] = [];
  const pairs = text.split(separator).map((pair) => {
    const equals = pair.indexOf('=');
    const value = pair.slice(equals + 1);
    if (equals === -1 || value === '') {
      return pair;
    }
    const name = pair.slice(0, equals);
    if (isSensitiveName(name)) {
      secrets.push(...forms(value));
      return `${name}=${REDACTED}`;
    }
    const decoded = decodeComponent(value);
    if (decoded === undefined || !decoded.includes(':')) {
      return pair;
    }
    const inner = redactText(decoded, depth + 1, false);
    if (inner.secrets.length === 0) {
      return pair;
    }
    secrets.push(...inner.secrets);
    return `${name}=${encodeURIComponent(inner.text).replaceAll(encodeURIComponent(REDACTED), REDACTED)}`;
  });
  return { text: pairs.join(separator), secrets };
}

/** A name is matched as written and decoded (`%74oken`, `access%5Ftoken`, even encoded twice). */
function isSensitiveName(name: string): boolean {
  let current: string | undefined = name;
  for (let round = 0; round < 3 && current !== undefined; round++) {
    if (SENSITIVE_NAME.test(current)) {
      return true;
    }
    const next = decodeComponent(current);
    current = next === current ? undefined : next;
  }
  return false;
}

/** A value as written and as decoded (the form a page or an answer may show it in). */
function forms(value: string): string[] {
  const decoded = decodeComponent(value);
  return decoded === undefined || decoded === value ? [value] : [value, decoded];
}

/** Form decoding (`+` is a space), or undefined for a malformed escape. */
function decodeComponent(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}
