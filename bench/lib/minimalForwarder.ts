import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Logger } from '../../electron/core/platform/Logger.js';
import { UpstreamClient } from '../../electron/core/upstream/UpstreamClient.js';
import { isRecord } from '../../shared/isRecord.js';
import { asToolResult } from '../../shared/toolResult.js';
import type { Teardown } from './Teardown.js';
import type { CallTool } from './toolCalls.js';

/** A Node process that copies bytes between its stdio and the Unix socket named by its first argument. */
const SOCKET_RELAY =
  "const socket = require('node:net').connect(process.argv[1]);" +
  'process.stdin.pipe(socket); socket.pipe(process.stdout);' +
  "socket.on('close', () => process.exit(0)); process.stdin.on('end', () => socket.end());";

/**
 * The least a daemon in tabmux's place must do, laid out as the bridge row is: the agent's SDK client on a process
 * that only copies bytes to a Unix socket (where `tabmux mcp serve` stands), served in this process (where the bench
 * runs tabmux's daemon) by a forwarder that parses each request, hands tool calls to an upstream child through the
 * upstream client tabmux's workers use, and serializes the answer. No sessions, queue, rewriting or log: the floor of
 * this layout, against which the bridge row's own work can be read.
 */
export async function minimalForwarderClient(teardown: Teardown, browserUrl: string): Promise<CallTool> {
  const upstream = await UpstreamClient.start({ endpoint: { kind: 'browserUrl', url: browserUrl }, logger: Logger.silent() });
  teardown.add('close the minimal forwarder upstream', () => upstream.close());
  const path = join(tmpdir(), `tabmux-bench-forwarder-${process.pid}.sock`);
  rmSync(path, { force: true });
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serve(socket, upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  teardown.add('close the minimal forwarder', () => closeServer(server, sockets, path));
  const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', SOCKET_RELAY, path], stderr: 'ignore' });
  const client = new Client({ name: 'tabmux-bench-forwarder', version: '1.0.0' });
  await client.connect(transport);
  teardown.add('close the minimal forwarder client', () => client.close());
  return async (name, args) => asToolResult(await client.callTool({ name, arguments: args }));
}

function serve(socket: Socket, upstream: UpstreamClient): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      void answer(socket, upstream, line);
    }
  });
}

async function answer(socket: Socket, upstream: UpstreamClient, line: string): Promise<void> {
  const message: unknown = JSON.parse(line);
  if (!isRecord(message) || message['id'] === undefined) {
    return;
  }
  const params = isRecord(message['params']) ? message['params'] : {};
  let result: unknown = {};
  if (message['method'] === 'initialize') {
    result = { protocolVersion: params['protocolVersion'], capabilities: { tools: {} }, serverInfo: { name: 'minimal-forwarder', version: '1.0.0' } };
  } else if (message['method'] === 'tools/call' && typeof params['name'] === 'string') {
    result = await upstream.callTool(params['name'], isRecord(params['arguments']) ? params['arguments'] : {});
  }
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message['id'], result })}\n`);
}

async function closeServer(server: Server, sockets: ReadonlySet<Socket>, path: string): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const socket of sockets) {
    socket.destroy();
  }
  await closed;
  rmSync(path, { force: true });
}
