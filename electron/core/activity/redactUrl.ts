/** Query parameter and argument names that can carry a credential. */
export const SENSITIVE_NAME = /pass|pwd|secret|token|auth|key|cookie|session|credential|signature|sig$|code$|bearer|header|value|text/i;

export const REDACTED = '[redacted]';

/**
 * A URL as the activity log keeps it: a password in its user info and the values of query parameters whose names
 * can carry a credential (`token`, `access_key`, `sig`, ...) are replaced. Anything that does not parse as a URL is
 * kept as written: it is not something a browser would send.
 */
export function redactUrl(url: string): { url: string; secrets: string[] } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, secrets: [] };
  }
  const secrets: string[] = [];
  if (parsed.password) {
    secrets.push(decodeURIComponent(parsed.password));
    parsed.password = 'redacted';
  }
  let changed = secrets.length > 0;
  for (const [name, value] of [...parsed.searchParams]) {
    if (SENSITIVE_NAME.test(name) && value !== '') {
      secrets.push(value);
      parsed.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  return { url: changed ? parsed.toString() : url, secrets };
}
