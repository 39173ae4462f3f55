import { describe, expect, it } from 'vitest';
import { Logger } from '../platform/Logger.js';
import { UpstreamClient } from './UpstreamClient.js';

describe('UpstreamClient.args', () => {
  const logger = Logger.silent();

  it('points upstream at a browser URL, with structured content on', () => {
    const args = UpstreamClient.args({ endpoint: { kind: 'browserUrl', url: 'http://127.0.0.1:9222' }, logger });
    expect(args.slice(1, 3)).toEqual(['--browserUrl', 'http://127.0.0.1:9222']);
    expect(args).toContain('--experimentalStructuredContent');
    expect(args).not.toContain('--wsEndpoint');
  });

  it('points upstream at a WebSocket endpoint and never passes headers on the command line', () => {
    const endpoint = { kind: 'wsEndpoint', url: 'ws://127.0.0.1:4000/relay/abc', hiddenEnv: ['TOKEN'] } as const;
    const args = UpstreamClient.args({ endpoint, logger });
    expect(args.slice(1, 3)).toEqual(['--wsEndpoint', 'ws://127.0.0.1:4000/relay/abc']);
    expect(args).not.toContain('--browserUrl');
    expect(args).not.toContain('--wsHeaders');
  });
});
