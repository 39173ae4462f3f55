import { TabmuxError } from '../../shared/errors.js';

/** True for an absolute http(s) URL: what HTTP discovery (`/json/version`) can be asked at. */
export function isBrowserUrl(value: string): boolean {
  if (!URL.canParse(value)) {
    return false;
  }
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
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

/** The URL with any user name and password replaced, for status output and logs. */
export function redactUrl(value: string): string {
  if (!URL.canParse(value)) {
    return value;
  }
  const url = new URL(value);
  if (url.username === '' && url.password === '') {
    return value;
  }
  url.username = 'redacted';
  url.password = '';
  return url.toString();
}
