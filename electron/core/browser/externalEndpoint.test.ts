import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { parseWsHeader, redactTemplateUrl, validateWsEndpoint, variablesIn } from '../profile/browserUrl.js';
import { describeEndpoint, expandEndpoint, scrubSecrets } from './externalEndpoint.js';

describe('externalEndpoint', () => {
  it('reads ${VAR} references from the environment, in the URL and in header values', () => {
    const expanded = expandEndpoint(
      { kind: 'wsEndpoint', url: 'wss://engine.example/chromium?token=${TOKEN}', headers: { Authorization: 'Bearer ${AUTH}' } },
      { TOKEN: 'abc123', AUTH: 'xyz789' },
    );
    expect(expanded.url).toBe('wss://engine.example/chromium?token=abc123');
    expect(expanded.headers).toEqual({ Authorization: 'Bearer xyz789' });
    expect(expanded.secrets).toEqual(expect.arrayContaining(['abc123', 'xyz789', 'Bearer xyz789']));
    expect(expanded.variables).toEqual(['TOKEN', 'AUTH']);
  });

  it('counts a password and literal query values in the URL as secrets', () => {
    const expanded = expandEndpoint({ kind: 'browserUrl', url: 'http://me:pa55@127.0.0.1:9222/?apikey=k3y' }, {});
    expect(expanded.secrets).toEqual(expect.arrayContaining(['me', 'pa55', 'k3y']));
  });

  it('refuses a variable that is not set, naming it', () => {
    let error: unknown;
    try {
      expandEndpoint({ kind: 'browserUrl', url: 'http://127.0.0.1:${PORT}' }, {});
    } catch (thrown) {
      error = thrown;
    }
    expect(TabmuxError.from(error).code).toBe('browser_unavailable');
    expect(TabmuxError.from(error).message).toContain('${PORT}');
  });

  it('shows references as written and hides literal credentials', () => {
    expect(redactTemplateUrl('ws://h:3000/chromium?token=${TOKEN}')).toBe('ws://h:3000/chromium?token=${TOKEN}');
    expect(redactTemplateUrl('ws://h:3000/chromium?token=s3cret&stealth=true')).toBe('ws://h:3000/chromium?token=redacted&stealth=redacted');
    expect(redactTemplateUrl('https://user:pw@h/')).not.toContain('pw');
    expect(redactTemplateUrl('http://127.0.0.1:9222')).toBe('http://127.0.0.1:9222');
    expect(describeEndpoint({ kind: 'wsEndpoint', url: 'ws://h/x', headers: { Authorization: 'Bearer s3cret' } })).toBe('ws://h/x (headers: Authorization)');
  });

  it('scrubs every secret from any text, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string(), (before, secret, after) => {
        fc.pre(!before.includes('*') && !after.includes('*') && !secret.includes('*'));
        expect(scrubSecrets(`${before}${secret}${after}${secret}`, [secret])).not.toContain(secret);
      }),
    );
  });

  it('lists references once each', () => {
    expect(variablesIn('${A}-${B}-${A}')).toEqual(['A', 'B']);
  });

  it('validates --ws-endpoint and --ws-header with errors that show the expected form', () => {
    expect(validateWsEndpoint('ws://127.0.0.1:3000/chromium?token=${TOKEN}')).toContain('${TOKEN}');
    expect(() => validateWsEndpoint('http://127.0.0.1:9222')).toThrow(/ws:\/\/ or wss:\/\//);
    expect(() => validateWsEndpoint('ws://')).toThrow(/ws:\/\//);
    expect(parseWsHeader('Authorization: Bearer ${TOKEN}')).toEqual(['Authorization', 'Bearer ${TOKEN}']);
    expect(() => parseWsHeader('no colon here')).toThrow(/Name: value/);
  });
});
