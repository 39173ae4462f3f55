import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { isRecord } from '../../shared/isRecord.js';
import { cliDriver } from '../helpers/cliDriver.js';
import { cliPath } from '../helpers/runCli.js';
import { makeTestHome } from '../helpers/testHome.js';

/**
 * `tabmux mcp serve` (the compiled CLI, a real daemon, Chromium and upstream behind it) given a request line over its
 * 64 MiB limit: the client gets an error under the request's id, as the daemon's socket answers one, and the bridge
 * goes on serving the next requests.
 */

const { home, env, cleanup } = makeTestHome();

afterAll(async () => {
  await cliDriver(home).tabmux(['daemon', 'stop']);
  cleanup();
});

describe('mcp serve and a line too long to read', () => {
  it('answers it with an error carrying its id, and keeps serving', async () => {
    const child = spawn(process.execPath, [cliPath(), 'mcp', 'serve', '--label', 'long-line'], { env: { PATH: process.env['PATH'] ?? '', ...env, TABMUX_HEADLESS: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr.resume();
    const replies = createInterface({ input: child.stdout });
    const waiting: ((line: string) => void)[] = [];
    const lines: string[] = [];
    replies.on('line', (line) => {
      const wake = waiting.shift();
      if (wake) {
        wake(line);
      } else {
        lines.push(line);
      }
    });
    const next = async (): Promise<Record<string, unknown>> => {
      const line =
        lines.shift() ??
        (await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no reply from mcp serve within 30 s')), 30_000);
          waiting.push((got) => {
            clearTimeout(timer);
            resolve(got);
          });
        }));
      const parsed: unknown = JSON.parse(line);
      if (!isRecord(parsed)) {
        throw new Error(`not a JSON-RPC message: ${line}`);
      }
      return parsed;
    };
    const send = (text: string): Promise<void> => new Promise((resolve, reject) => child.stdin.write(`${text}\n`, (error) => (error ? reject(error) : resolve())));
    try {
      await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'long-line', version: '1' } } }));
      expect(await next()).toMatchObject({ id: 1, result: { serverInfo: { name: 'tabmux' } } });
      await send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      // As the MCP SDK writes a request: the id last, after the arguments.
      await send(`{"method":"tools/call","params":{"name":"evaluate_script","arguments":{"function":"() => '${'x'.repeat(65 * 1024 * 1024)}'"}},"jsonrpc":"2.0","id":2}`);
      const refused = await next();
      expect(refused).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32600 } });
      const error = refused['error'];
      expect(isRecord(error) ? error['message'] : undefined).toMatch(/longer than 67108864 bytes was dropped; send smaller messages/);
      await send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'evaluate_script', arguments: { function: '() => 6 * 7' } } }));
      const answered = await next();
      expect(answered).toMatchObject({ id: 3, result: { content: [{ type: 'text' }] } });
      expect(JSON.stringify(answered['result'])).toContain('42');
    } finally {
      child.stdin.end();
      replies.close();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  });
});
