import { describe, expect, it } from 'vitest';
import { Logger } from './Logger.js';
import { UpstreamClient } from './UpstreamClient.js';

describe('UpstreamClient.args', () => {
  const logger = Logger.silent();

  it('points upstream at a browser URL, with structured content on', () => {
    const args = UpstreamClient.args({ endpoint: { kind: 'browserUrl', url: 'http://127.0.0.1:9222' }, logger });
    expect(args.slice(1, 3)).toEqual(['--browserUrl', 'http://127.0.0.1:9222']);
    expect(args).toContain('--experimentalStructuredContent');
    expect(args).not.toContain('--wsEndpoint');
  });

  it('points upstream at a WebSocket endpoint with its headers', () => {
    const endpoint = { kind: 'wsEndpoint', url: 'wss://cdp.example/browser', headers: { Authorization: 'Bearer x' } } as const;
    const args = UpstreamClient.args({ endpoint, logger });
    expect(args.slice(1, 5)).toEqual(['--wsEndpoint', 'wss://cdp.example/browser', '--wsHeaders', '{"Authorization":"Bearer x"}']);
    expect(args).not.toContain('--browserUrl');
  });
});
