import { TabmuxError } from '../../../shared/errors.js';
import { redactTemplateUrl, VARIABLE, variablesIn } from '../profile/browserUrl.js';

/**
 * Where an external browser is, as the profile's config says it: an HTTP discovery address (`--browser-url`) or a
 * browser-level WebSocket (`--ws-endpoint`) with headers. The URL and the header values may name environment
 * variables as `${VAR}`; they are read from the daemon's environment at every connect, so a token never has to be
 * written to the config.
 */
export type ExternalEndpoint =
  | { kind: 'browserUrl'; url: string }
  | { kind: 'wsEndpoint'; url: string; headers: Readonly<Record<string, string>> };

/** The endpoint with every `${VAR}` replaced, and the values that must never be shown. */
export interface ExpandedEndpoint {
  kind: ExternalEndpoint['kind'];
  url: string;
  headers: Record<string, string>;
  /** Values to scrub from anything shown: expanded variables, header values, passwords and query values in the URL. */
  secrets: string[];
  /** The environment variables the endpoint names, kept from the workers' environment. */
  variables: string[];
}

/** Replaces `${VAR}` with its value in `env`; a variable that is not set is an error that names it (never a value). */
function expand(template: string, env: NodeJS.ProcessEnv, where: string): string {
  return template.replace(VARIABLE, (_whole, name: string) => {
    const value = env[name];
    if (value === undefined || value === '') {
      throw new TabmuxError(
        'browser_unavailable',
        `the profile's ${where} names \${${name}}, which is not set in the daemon's environment; set ${name} where the daemon starts (for example: ${name}=... tabmux daemon start --profile NAME) and retry`,
      );
    }
    return value;
  });
}

/** Reads the endpoint's variables from `env`. */
export function expandEndpoint(endpoint: ExternalEndpoint, env: NodeJS.ProcessEnv): ExpandedEndpoint {
  const where = endpoint.kind === 'browserUrl' ? 'browser URL' : 'WebSocket endpoint';
  const url = expand(endpoint.url, env, where);
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  const variables = variablesIn(endpoint.url);
  if (endpoint.kind === 'wsEndpoint') {
    for (const [name, template] of Object.entries(endpoint.headers)) {
      const value = expand(template, env, `header ${name}`);
      headers[name] = value;
      secrets.push(value);
      variables.push(...variablesIn(template));
    }
  }
  for (const name of variables) {
    const value = env[name];
    if (value !== undefined) {
      secrets.push(value);
    }
  }
  secrets.push(...urlSecrets(url));
  return { kind: endpoint.kind, url, headers, secrets: [...new Set(secrets)].filter((secret) => secret.length > 0), variables: [...new Set(variables)] };
}

/** What in a URL may be a credential: the user name and password, and every query value. */
function urlSecrets(value: string): string[] {
  if (!URL.canParse(value)) {
    return [];
  }
  const url = new URL(value);
  const found = [url.username, url.password, decodeURIComponent(url.password)];
  for (const [, queryValue] of url.searchParams) {
    found.push(queryValue, encodeURIComponent(queryValue));
  }
  return found.filter((secret) => secret.length > 0);
}

/**
 * The endpoint as status output and logs show it: `${VAR}` references as written, a password and every literal
 * query value replaced by `redacted`, header names without their values.
 */
export function describeEndpoint(endpoint: ExternalEndpoint): string {
  const shown = redactTemplateUrl(endpoint.url);
  if (endpoint.kind === 'browserUrl') {
    return shown;
  }
  const names = Object.keys(endpoint.headers);
  return names.length === 0 ? shown : `${shown} (headers: ${names.join(', ')})`;
}

/** Replaces every secret value in `text` (longest first, so no part of one is left) with `***`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0) {
      scrubbed = scrubbed.split(secret).join('***');
    }
  }
  return scrubbed;
}

/** Whether a URL template holds anything that may be a credential: a `${VAR}`, a user name or password, a query. */
export function holdsCredentials(template: string): boolean {
  if (variablesIn(template).length > 0) {
    return true;
  }
  if (!URL.canParse(template)) {
    return true;
  }
  const url = new URL(template);
  return url.username !== '' || url.password !== '' || url.search !== '';
}
