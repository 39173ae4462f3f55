import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../shared/errors.js';
import { isBrowserUrl, redactUrl, validateBrowserUrl } from './browserUrl.js';

describe('browserUrl', () => {
  it('accepts http(s) URLs only', () => {
    expect(isBrowserUrl('http://127.0.0.1:9222')).toBe(true);
    expect(isBrowserUrl('https://browser.example:443/')).toBe(true);
    expect(isBrowserUrl('ws://127.0.0.1:9222/devtools/browser/x')).toBe(false);
    expect(isBrowserUrl('127.0.0.1:9222')).toBe(false);
    expect(isBrowserUrl('')).toBe(false);
  });

  it('refuses anything else with an error that shows the expected form', () => {
    expect(validateBrowserUrl('http://127.0.0.1:9222')).toBe('http://127.0.0.1:9222');
    let error: unknown;
    try {
      validateBrowserUrl('localhost:9222');
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(TabmuxError);
    expect(TabmuxError.from(error).code).toBe('invalid_params');
    expect(TabmuxError.from(error).message).toContain('http://127.0.0.1:9222');
  });

  it('redacts credentials and leaves other URLs as they are', () => {
    expect(redactUrl('http://127.0.0.1:9222')).toBe('http://127.0.0.1:9222');
    const redacted = redactUrl('https://user:s3cret@browser.example/');
    expect(redacted).not.toContain('s3cret');
    expect(redacted).not.toContain('user');
    expect(redacted).toContain('browser.example');
  });
});
