import { TabmuxError } from '../../../shared/errors.js';

/** A `${VAR}` reference: a value read from the daemon's environment at connect time. */
export const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The names of the `${VAR}` references in a template, in order, each once. */
export function variablesIn(template: string): string[] {
  return [...new Set([...template.matchAll(VARIABLE)].map((match) => match[1] ?? ''))];
}

/** `${VAR}` references stand for values read at connect time; for checking the form, any value will do. */
function withVariablesFilled(value: string): string {
  return value.replace(VARIABLE, '1');
}

function hasProtocol(value: string, protocols: readonly string[]): boolean {
  const filled = withVariablesFilled(value);
  return URL.canParse(filled) && protocols.includes(new URL(filled).protocol);
}

/** True for an absolute http(s) URL: what HTTP discovery (`/json/version`) can be asked at. */
export function isBrowserUrl(value: string): boolean {
  return hasProtocol(value, ['http:', 'https:']);
}

/** True for an absolute ws(s) URL: a browser-level DevTools WebSocket. */
export function isWsEndpoint(value: string): boolean {
  return hasProtocol(value, ['ws:', 'wss:']);
}

/** `--browser-url` as given, or an error that shows the expected form. */
export function validateBrowserUrl(value: string): string {
  if (!isBrowserUrl(value)) {
    throw new TabmuxError(
      'invalid_params',
      `--browser-url must be an http(s) URL of a browser's DevTools endpoint, such as http://127.0.0.1:9222 (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

/** A URL template with its credentials hidden; `${VAR}` references stay readable, since they hold no secret. */
export function redactTemplateUrl(template: string): string {
  // Keep references out of the URL parser's way (it would percent-encode the braces).
  const references: string[] = [];
  const masked = template.replace(VARIABLE, (whole) => {
    references.push(whole);
    return `tabmuxvar${references.length - 1}x`;
  });
  if (!URL.canParse(masked)) {
    return template;
  }
  const url = new URL(masked);
  const isReference = (value: string): boolean => /^tabmuxvar\d+x$/.test(value);
  let changed = false;
  if (url.password !== '' && !isReference(url.password)) {
    url.password = 'redacted';
    changed = true;
  }
  if (url.username !== '' && url.password === '' && !isReference(url.username)) {
    url.username = 'redacted';
    changed = true;
  }
  for (const [key, value] of [...url.searchParams]) {
    if (!isReference(value)) {
      url.searchParams.set(key, 'redacted');
      changed = true;
    }
  }
  if (!changed) {
    return template;
  }
  return url.toString().replace(/tabmuxvar(\d+)x/g, (_whole, index: string) => references[Number(index)] ?? '');
}

/** `--ws-endpoint` as given, or an error that shows the expected form. `${VAR}` references are allowed anywhere. */
export function validateWsEndpoint(value: string): string {
  const probe = value.replace(VARIABLE, 'x');
  if (!URL.canParse(probe) || !['ws:', 'wss:'].includes(new URL(probe).protocol)) {
    throw new TabmuxError(
      'invalid_params',
      `--ws-endpoint must be a ws:// or wss:// URL of a browser-level DevTools WebSocket, such as ws://127.0.0.1:3000/chromium?token=\${TOKEN} (got ${JSON.stringify(redactTemplateUrl(value))})`,
    );
  }
  return value;
}

/** One `--ws-header 'Name: value'`, split; the value may name `${VAR}`. */
export function parseWsHeader(value: string): [string, string] {
  const colon = value.indexOf(':');
  const name = colon > 0 ? value.slice(0, colon).trim() : '';
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
    throw new TabmuxError('invalid_params', `--ws-header must look like 'Name: value', such as 'Authorization: Bearer \${TOKEN}' (got a header without a valid name)`);
  }
  return [name, value.slice(colon + 1).trim()];
}
