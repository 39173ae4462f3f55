import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import type { ToolInfo, ToolResult } from '../../../shared/protocol.js';
import { Logger } from '../platform/Logger.js';
import { RelayedResult } from './RelayedResult.js';
import { MCP_PROTOCOL_VERSIONS, StdioMcpServer } from './StdioMcpServer.js';
import type { JsonRpcId } from '../../../shared/jsonrpc.js';
import type { CallOptions, ToolBridge, ToolLane } from './ToolBridge.js';

/** A lane that keeps what it was sent; the test answers each call. It takes no call whose arguments say `decline`. */
class TestLane implements ToolLane {
  readonly sent: { id: JsonRpcId; line: string; done: (reply: Buffer | ToolResult | TabmuxError) => void }[] = [];
  readonly cancelled: JsonRpcId[] = [];

  call(id: JsonRpcId, line: Buffer, args: Record<string, unknown>, done: (reply: Buffer | ToolResult | TabmuxError) => void): boolean {
    if (args['decline'] === true) {
      return false;
    }
    if (args['answerAtOnce'] === true) {
      done({ content: [{ type: 'text', text: 'at once' }] });
      return true;
    }
    this.sent.push({ id, line: line.toString('utf8'), done });
    return true;
  }
  cancel(id: JsonRpcId): void {
    this.cancelled.push(id);
  }
}

/** A bridge whose tools answer from the test: `slow` waits until aborted, `bad` returns malformed content. */
class TestBridge implements ToolBridge {
  clientName: string | undefined;
  started = 0;
  readonly aborted: string[] = [];
  laneNow: TestLane | undefined;

  lane(): ToolLane | undefined {
    return this.laneNow;
  }
  setClientName(name: string | undefined): void {
    this.clientName = name;
  }
  warmUp(): void {}
  start(): void {
    this.started++;
  }
  listTools(): Promise<ToolInfo[]> {
    return Promise.resolve([{ name: 'echo', inputSchema: { type: 'object' } }]);
  }
  callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult | RelayedResult> {
    if (name === 'relayed') {
      // As the daemon writes a result: JSON.stringify, non-ASCII text as it is, an escaped newline and quote.
      return Promise.resolve(new RelayedResult(Buffer.from(JSON.stringify({ content: [{ type: 'text', text: 'déjà vu "uid=1"\n✓' }] }))));
    }
    if (name === 'slow') {
      return new Promise((resolve) => {
        options.signal?.onCancel(() => {
          this.aborted.push(name);
          resolve({ content: [{ type: 'text', text: 'late' }] });
        });
      });
    }
    if (name === 'bad') {
      return Promise.resolve({ content: [{ type: 'text' }] });
    }
    if (name === 'missing') {
      return Promise.reject(new TabmuxError('unknown_tool', 'unknown tool missing'));
    }
    return Promise.resolve({ content: [{ type: 'text', text: JSON.stringify({ args, progressToken: options.progressToken ?? null }) }] });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function setUp(options: { sessionArg?: boolean; afterFirstCall?: () => void; progressEveryMs?: number } = {}): {
  bridge: TestBridge;
  server: StdioMcpServer;
  send: (message: object | string) => void;
  next: () => Promise<Record<string, unknown>>;
  nextLine: () => Promise<string>;
} {
  const input = new PassThrough();
  const output = new PassThrough();
  const bridge = new TestBridge();
  const server = new StdioMcpServer({
    bridge,
    version: '9.9.9',
    sessionArg: options.sessionArg ?? false,
    severalBrowsers: false,
    logger: Logger.silent(),
    input,
    output,
    afterFirstCall: options.afterFirstCall,
    progressEveryMs: options.progressEveryMs,
  });
  server.start();
  const lines: string[] = [];
  let buffered = '';
  let wake: (() => void) | undefined;
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
    wake?.();
  });
  const nextLine = async (): Promise<string> => {
    while (lines.length === 0) {
      await new Promise<void>((resolve) => (wake = resolve));
    }
    return lines.shift() ?? '';
  };
  const next = async (): Promise<Record<string, unknown>> => {
    const parsed: unknown = JSON.parse(await nextLine());
    if (!isRecord(parsed)) {
      throw new Error('not an object');
    }
    return parsed;
  };
  const send = (message: object | string): void => {
    input.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  };
  return { bridge, server, send, next, nextLine };
}

describe('StdioMcpServer', () => {
  it('answers a line too long to read with an error under its id, wherever the client put the id, and keeps serving', async () => {
    const { send, next } = setUp();
    const big = 'x'.repeat(64 * 1024 * 1024 + 16);
    // The MCP SDK writes the id last; tabmux's own clients write it first.
    send(`{"method":"tools/call","params":{"name":"echo","arguments":{"text":"${big}"}},"jsonrpc":"2.0","id":7}`);
    const last = await next();
    expect(last).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
    const error = last['error'];
    expect(isRecord(error) ? error['message'] : undefined).toMatch(/longer than 67108864 bytes was dropped; send smaller messages/);
    send(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"name":"echo","arguments":{"text":"${big}"}}}`);
    expect(await next()).toMatchObject({ id: 'first', error: { code: -32600 } });
    // A notification gets no answer; the next request is served as usual.
    send(`{"method":"notifications/message","params":{"data":"${big}"},"jsonrpc":"2.0"}`);
    send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
  });

  it('negotiates the protocol version, names itself and tells the bridge who the client is once initialized', async () => {
    const { bridge, send, next } = setUp({ sessionArg: true });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'agent-x', version: '1' } } });
    const reply = await next();
    expect(reply['id']).toBe(1);
    expect(reply['result']).toMatchObject({ protocolVersion: '2025-03-26', serverInfo: { name: 'tabmux', version: '9.9.9' }, capabilities: { tools: { listChanged: true } } });
    expect(JSON.stringify(reply['result'])).toContain('session_id');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '1999-01-01' } });
    expect((await next())['result']).toMatchObject({ protocolVersion: MCP_PROTOCOL_VERSIONS[0] });
    expect(bridge.clientName).toBe('agent-x');
    expect(bridge.started).toBe(1);
  });

  it('lists tools, passes calls with their progress token through, and answers ping', async () => {
    const { send, next } = setUp();
    send({ jsonrpc: '2.0', id: 'a', method: 'tools/list' });
    expect((await next())['result']).toEqual({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
    send({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { x: 1 }, _meta: { progressToken: 7 } } });
    expect((await next())['result']).toEqual({ content: [{ type: 'text', text: '{"args":{"x":1},"progressToken":7}' }] });
    send({ jsonrpc: '2.0', id: 'c', method: 'ping' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 'c', result: {} });
  });

  it('writes a result the daemon serialized under the client\'s own id, byte for byte', async () => {
    const { send, next } = setUp();
    send({ jsonrpc: '2.0', id: 'req "7"', method: 'tools/call', params: { name: 'relayed', arguments: {} } });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 'req "7"', result: { content: [{ type: 'text', text: 'déjà vu "uid=1"\n✓' }] } });
    send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'relayed', arguments: {} } });
    expect((await next())['id']).toBe(8);
  });

  it('answers errors the way MCP servers do, and keeps serving after bad input', async () => {
    const { send, next } = setUp();
    send('{not json');
    expect((await next())['error']).toMatchObject({ code: -32700 });
    send({ jsonrpc: '2.0', id: 1, method: 'resources/list' });
    expect(await next()).toMatchObject({ id: 1, error: { code: -32601, message: 'Method not found' } });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'missing' } });
    expect(await next()).toMatchObject({ id: 2, error: { code: -32602, message: 'unknown tool missing' } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } });
    expect(await next()).toMatchObject({ id: 3, error: { code: -32602 } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'bad' } });
    expect((await next())['result']).toMatchObject({ isError: true });
    send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect(await next()).toMatchObject({ id: 5, result: {} });
  });

  it('aborts a cancelled call and sends no answer for it', async () => {
    const { bridge, send, next } = setUp();
    send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'slow' } });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10, reason: 'user' } });
    send({ jsonrpc: '2.0', id: 11, method: 'ping' });
    expect(await next()).toMatchObject({ id: 11 });
    expect(bridge.aborted).toEqual(['slow']);
  });

  it('tells a client that gave a call a progress token that it still runs, on the lane or not, until it ends', async () => {
    const { bridge, send, next } = setUp({ progressEveryMs: 20 });
    const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 70));
    // Through the bridge: the call runs until it is cancelled, and nothing more is said after that.
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'p1' } } });
    expect(await next()).toMatchObject({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, message: expect.stringMatching(/^still running after \d+ s$/) as unknown } });
    expect(await next()).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p1', progress: 2 } });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await pause();
    send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });

    // On the lane: told until the answer, then the answer, then nothing.
    const lane = new TestLane();
    bridge.laneNow = lane;
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask_human', arguments: {}, _meta: { progressToken: 7 } } });
    expect(await next()).toMatchObject({ method: 'notifications/progress', params: { progressToken: 7, progress: 1 } });
    lane.sent[0]?.done({ content: [{ type: 'text', text: 'yes' }] });
    expect(await next()).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'yes' }] } });
    // A call without a token is never told of.
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'ask_human', arguments: {} } });
    await pause();
    send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
    lane.sent[1]?.done({ content: [] });
    expect(await next()).toMatchObject({ id: 4 });
    // A lane that answers before it returns leaves nothing to tell of afterwards.
    send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'list_pages', arguments: { answerAtOnce: true }, _meta: { progressToken: 'p6' } } });
    expect(await next()).toMatchObject({ id: 6, result: { content: [{ type: 'text', text: 'at once' }] } });
    await pause();
    send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('sends plain tool calls down the lane as the client wrote them, and writes each reply line as it came', async () => {
    const { bridge, send, next, nextLine } = setUp();
    const lane = new TestLane();
    bridge.laneNow = lane;
    const written = '{ "id": "q1", "jsonrpc": "2.0", "method": "tools/call", "params": {"name": "list_pages", "arguments": {}} }';
    send(written);
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'take_snapshot' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lane.sent.map(({ id, line }) => ({ id, line }))).toEqual([
      { id: 'q1', line: written },
      { id: 2, line: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"take_snapshot"}}' },
    ]);
    // Replies go out in the order they come, each exactly as the daemon wrote it.
    const reply = '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"déjà \\n {\\"id\\":\\"q1\\"}"}]}}';
    lane.sent[1]?.done(Buffer.from(reply));
    expect(await nextLine()).toBe(reply);
    lane.sent[0]?.done({ content: [{ type: 'text', text: 'Error: refused' }], isError: true });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 'q1', result: { content: [{ type: 'text', text: 'Error: refused' }], isError: true } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope', arguments: {} } });
    await new Promise((resolve) => setImmediate(resolve));
    lane.sent[2]?.done(new TabmuxError('unknown_tool', 'unknown tool nope'));
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'unknown tool nope' } });
  });

  it('gives the bridge the calls its lane declines, and every other request', async () => {
    const { bridge, send, next } = setUp();
    const lane = new TestLane();
    bridge.laneNow = lane;
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { decline: true } } });
    expect((await next())['result']).toEqual({ content: [{ type: 'text', text: '{"args":{"decline":true},"progressToken":null}' }] });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: 'not an object' } });
    expect(await next()).toMatchObject({ id: 2, error: { code: -32602 } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect((await next())['id']).toBe(3);
    expect(lane.sent).toEqual([]);
  });

  it('tells the lane of a cancelled call and writes no answer for it', async () => {
    const { bridge, send, next } = setUp();
    const lane = new TestLane();
    bridge.laneNow = lane;
    send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'evaluate_script', arguments: {} } });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10, reason: 'user' } });
    send({ jsonrpc: '2.0', id: 11, method: 'ping' });
    expect(await next()).toMatchObject({ id: 11 });
    expect(lane.cancelled).toEqual([10]);
    lane.sent[0]?.done(Buffer.from('{"jsonrpc":"2.0","id":10,"result":{"content":[]}}'));
    send({ jsonrpc: '2.0', id: 12, method: 'ping' });
    expect(await next()).toMatchObject({ id: 12 });
  });

  it('runs afterFirstCall once, after the first tool call is answered, on the lane or not', async () => {
    for (const viaLane of [false, true]) {
      let runs = 0;
      const { bridge, send, next } = setUp({ afterFirstCall: () => runs++ });
      const lane = new TestLane();
      if (viaLane) {
        bridge.laneNow = lane;
      }
      send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      await next();
      await new Promise((resolve) => setImmediate(resolve));
      expect(runs).toBe(0);
      for (const id of [2, 3]) {
        send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
        if (viaLane) {
          await new Promise((resolve) => setImmediate(resolve));
          lane.sent.shift()?.done(Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"content":[]}}`));
        }
        expect((await next())['id']).toBe(id);
        await new Promise((resolve) => setImmediate(resolve));
        expect(runs).toBe(1);
      }
    }
  });

  it('passes on server notifications only', async () => {
    const { server, send, next } = setUp();
    server.notify('tabmux/event', { kind: 'x' });
    server.notify('notifications/progress', { progressToken: 7, progress: 1 });
    expect(await next()).toEqual({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } });
    server.close();
    send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    server.notify('notifications/progress', { progressToken: 7, progress: 2 });
  });
});
