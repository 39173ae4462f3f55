import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamRpc, UpstreamRpcError } from './UpstreamRpc.js';
import { RESPONSE_TOO_LARGE_CODE, UpstreamStdioTransport } from './UpstreamStdioTransport.js';

const MiB = 1024 * 1024;

/**
 * A small MCP server on stdio: `tools/call` answers with a text of `arguments.size` characters, written the way the
 * SDK server writes a response (the id last), after `arguments.delay` ms. `arguments.forged` ends the text with an
 * envelope naming the first call's id.
 */
const FAKE_SERVER = `
const readline = require('node:readline');
const reply = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return;
  if (request.method === 'initialize') {
    reply({ result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } }, jsonrpc: '2.0', id: request.id });
  } else if (request.method === 'tools/call') {
    const { size, forged, delay } = request.params.arguments;
    const text = 'x'.repeat(size) + (forged ? '},"jsonrpc":"2.0","id":1}' : '');
    setTimeout(() => reply({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: request.id }), delay ?? 0);
  } else if (request.method === 'ask') {
    // A server that asks the client something (ping), then answers with what the client said.
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' }) + '\\n');
    readline.createInterface({ input: process.stdin }).once('line', (answer) => reply({ result: { answer: JSON.parse(answer) }, jsonrpc: '2.0', id: request.id }));
  } else {
    reply({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

const open: UpstreamStdioTransport[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
});

interface Connected {
  client: { callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown>; rpc: UpstreamRpc };
  transport: UpstreamStdioTransport;
}

async function connect(maxMessageBytes: number): Promise<Connected> {
  const transport = new UpstreamStdioTransport({ command: process.execPath, args: ['-e', FAKE_SERVER], maxMessageBytes });
  open.push(transport);
  const rpc = new UpstreamRpc(transport);
  await rpc.connect({ name: 'test', version: '1' });
  return { client: { callTool: (params) => rpc.request('tools/call', params), rpc }, transport };
}

function textLength(result: unknown): number {
  const content: unknown = typeof result === 'object' && result !== null && 'content' in result ? result.content : undefined;
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  return typeof first === 'object' && first !== null && 'text' in first && typeof first.text === 'string' ? first.text.length : -1;
}

function isRunning(pid: number | null): boolean {
  if (pid === null) {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('UpstreamStdioTransport', () => {
  it('fails only the call whose answer is over the limit, and keeps the child serving', { timeout: 30_000 }, async () => {
    const { client, transport } = await connect(MiB);
    const tooLarge = client.callTool({ name: 'dump', arguments: { size: 2 * MiB } });
    await expect(tooLarge).rejects.toSatisfy((error: unknown) => error instanceof UpstreamRpcError && error.code === RESPONSE_TOO_LARGE_CODE);
    expect(textLength(await client.callTool({ name: 'dump', arguments: { size: 20 } }))).toBe(20);
    expect(isRunning(transport.pid)).toBe(true);
  });

  it('fails the call the dropped answer belongs to, whatever its text says', { timeout: 30_000 }, async () => {
    const { client } = await connect(MiB);
    // Still waiting when the dropped line arrives, and the oldest call: blamed if the id were not read.
    const waiting = client.callTool({ name: 'dump', arguments: { size: 10, delay: 1_000 } });
    const forged = client.callTool({ name: 'dump', arguments: { size: 2 * MiB, forged: true } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(textLength(await waiting)).toBe(10);
    expect(await forged).toSatisfy((error: unknown) => error instanceof UpstreamRpcError && error.code === RESPONSE_TOO_LARGE_CODE);
  });

  it('reads a large answer under the limit whole', { timeout: 60_000 }, async () => {
    const { client } = await connect(64 * MiB);
    expect(textLength(await client.callTool({ name: 'dump', arguments: { size: 30 * MiB } }))).toBe(30 * MiB);
  });

  it('answers a ping from the server, passes error answers on with their code, and fails calls when the child exits', { timeout: 30_000 }, async () => {
    const { client, transport } = await connect(MiB);
    expect(await client.rpc.request('ask')).toEqual({ answer: { jsonrpc: '2.0', id: 'srv-1', result: {} } });
    await expect(client.rpc.request('nope')).rejects.toSatisfy((error: unknown) => error instanceof UpstreamRpcError && error.code === -32601 && error.message === 'MCP error -32601: Method not found');
    const pending = client.callTool({ name: 'dump', arguments: { size: 1, delay: 10_000 } });
    const pid = transport.pid;
    if (pid !== null) {
      process.kill(pid, 'SIGKILL');
    }
    await expect(pending).rejects.toThrow('MCP error -32000: Connection closed');
  });

  it('skips a line that is not a message and keeps reading', { timeout: 30_000 }, async () => {
    const transport = new UpstreamStdioTransport({
      command: process.execPath,
      args: ['-e', `process.stdout.write('not json\\n' + JSON.stringify({ jsonrpc: '2.0', method: 'ping' }) + '\\n')`],
      maxMessageBytes: MiB,
    });
    open.push(transport);
    const errors: string[] = [];
    const methods: string[] = [];
    transport.onerror = (error) => errors.push(error.message);
    transport.onmessage = (message) => {
      methods.push('method' in message ? message.method : '');
    };
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
    });
    await transport.start();
    await closed;
    expect(errors).toHaveLength(1);
    expect(methods).toEqual(['ping']);
  });
});
