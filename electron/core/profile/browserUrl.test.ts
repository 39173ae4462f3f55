import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { isBrowserUrl, isWsEndpoint, validateBrowserUrl } from './browserUrl.js';

describe('browserUrl', () => {
  it('accepts http(s) URLs only', () => {
    expect(isBrowserUrl('http://127.0.0.1:9222')).toBe(true);
    expect(isBrowserUrl('https://browser.example:443/')).toBe(true);
    expect(isBrowserUrl('ws://127.0.0.1:9222/devtools/browser/x')).toBe(false);
    expect(isBrowserUrl('127.0.0.1:9222')).toBe(false);
    expect(isBrowserUrl('')).toBe(false);
  });

  it('takes ${VAR} references where a value will be read at connect time', () => {
    expect(isBrowserUrl('http://127.0.0.1:${PORT}')).toBe(true);
    expect(isWsEndpoint('wss://engine.example/chromium?token=${TOKEN}')).toBe(true);
    expect(isWsEndpoint('http://127.0.0.1:9222')).toBe(false);
    expect(isWsEndpoint('${URL}')).toBe(false);
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
});
