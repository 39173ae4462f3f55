import type { Readable, Writable } from 'node:stream';
import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import { asRequest, type JsonRpcId, type JsonRpcRequest } from '../../../shared/jsonrpc.js';
import { leadingId } from '../../../shared/leadingId.js';
import type { ToolResult } from '../../../shared/protocol.js';
import type { Logger } from '../platform/Logger.js';
import { LineDecoder, type DroppedLine } from '../transport/LineDecoder.js';
import { CancelSignal } from './CancelSignal.js';
import { PROGRESS_EVERY_MS, tellProgress } from './callProgress.js';
import { RelayedResult } from './RelayedResult.js';
import { BRIDGE_INSTRUCTIONS } from './bridgeInstructions.js';
import type { ToolBridge } from './ToolBridge.js';

/** MCP protocol versions this server speaks, newest first; a client asking for another one gets the newest. */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

const REPLY_END = Buffer.from('}\n');
const NEWLINE = Buffer.from('\n');

/** JSON-RPC error codes MCP uses. */
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** Longest line read from the MCP client: far above any tool call an agent sends, and it bounds our memory. */
const MAX_CLIENT_LINE_BYTES = 64 * 1024 * 1024;
/** The last bytes kept of a line too long to read, where a client that writes its id last (the MCP SDK) put it. */
const DROPPED_TAIL_BYTES = 256;
/**
 * A request's id as the last member of its object, as the MCP SDK writes requests (`{"method":…,"params":…,
 * "jsonrpc":"2.0","id":7}`): read at the very end of the line, after everything the params hold.
 */
const TRAILING_ID = /,\s*"id"\s*:\s*(-?(?:0|[1-9][0-9]{0,14})|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/;

/** Notifications a server may send; anything else the daemon pushes is not for the MCP client. */
const SERVER_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/progress',
  'notifications/message',
  'notifications/cancelled',
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/prompts/list_changed',
]);

export interface StdioMcpServerOptions {
  bridge: ToolBridge;
  version: string;
  sessionArg: boolean;
  severalBrowsers: boolean;
  logger: Logger;
  input: Readable;
  output: Writable;
  /** Runs once the first tool call's reply is written, off that reply's path (the client is attached and served). */
  afterFirstCall?: (() => void) | undefined;
  /** How often a running call tells of its progress (callProgress.ts); PROGRESS_EVERY_MS unless given. */
  progressEveryMs?: number | undefined;
}

/**
 * The MCP face of `tabmux mcp serve` on stdio: initialize, ping, tools/list and tools/call handed to the bridge,
 * cancellation, and notifications passed on. It is written out here rather than taken from the MCP SDK because the
 * SDK's server builds its whole schema library at start-up, which is most of a new bridge's attach time, and a
 * bridge passes the daemon's messages through: it needs JSON-RPC framing, not validation of every message.
 */
export class StdioMcpServer {
  readonly #options: StdioMcpServerOptions;
  readonly #running = new Map<JsonRpcId, CancelSignal>();
  readonly #decoder = new LineDecoder(MAX_CLIENT_LINE_BYTES, { tailBytes: DROPPED_TAIL_BYTES });
  #clientName: string | undefined;
  #closed = false;
  #servedCall = false;
  /** Called once when the server is closed. */
  onclose: (() => void) | undefined;

  constructor(options: StdioMcpServerOptions) {
    this.#options = options;
  }

  /** The MCP client's name from `initialize`. */
  get clientName(): string | undefined {
    return this.#clientName;
  }

  /** Starts reading the client's messages. */
  start(): void {
    this.#options.input.on('data', this.#onData);
  }

  /** Passes an MCP notification from the daemon (progress, logging, list changes) on to the client, if it is one. */
  notify(method: string, params: unknown): void {
    if (!SERVER_NOTIFICATIONS.has(method) || (params !== undefined && !isRecord(params))) {
      return;
    }
    this.#write(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  close(): void {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    this.#options.input.off('data', this.#onData);
    for (const signal of this.#running.values()) {
      signal.cancel();
    }
    this.#running.clear();
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    for (const raw of this.#decoder.pushBytes(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
      const decoded = 'bytes' in raw ? this.#decoder.decode(raw.bytes) : raw;
      if ('line' in decoded && 'bytes' in raw) {
        this.#onLine(decoded.line, raw.bytes);
      } else if ('error' in decoded) {
        this.#onDropped(decoded);
      }
    }
  };

  /**
   * A line that could not be read (too long, not UTF-8) is answered with an error under its id, as the daemon's
   * socket answers one, so the client's request fails rather than waits forever; the next line is read as usual.
   */
  #onDropped(dropped: DroppedLine): void {
    this.#options.logger.warn(`dropped a message from the MCP client: ${dropped.error.message}`);
    const id = leadingId(dropped.head) ?? trailingId(dropped.tail);
    if (id === undefined && /^\s*\{\s*"method"\s*:\s*"notifications\//.test(dropped.head)) {
      // A notification is never answered.
      return;
    }
    this.#writeError(id ?? null, dropped.error.code === 'line_too_long' ? INVALID_REQUEST : PARSE_ERROR, dropped.error.message);
  }

  #onLine(line: string, bytes: Buffer): void {
    if (line.trim() === '') {
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.#writeError(null, PARSE_ERROR, 'Parse error: send one JSON-RPC 2.0 message per line');
      return;
    }
    const request = asRequest(json);
    if (typeof request === 'string') {
      // Responses to requests we never send, or junk: a request id we can see gets an error, the rest is dropped.
      if (isRecord(json) && 'method' in json && (typeof json['id'] === 'string' || typeof json['id'] === 'number')) {
        this.#writeError(json['id'], INVALID_REQUEST, `Invalid request: ${request}`);
      }
      return;
    }
    if (request.id === undefined) {
      this.#onNotification(request);
    } else if (!(request.method === 'tools/call' && this.#viaLane(request, request.id, bytes))) {
      void this.#answer(request, request.id);
    }
  }

  /** A plain tool call goes down the bridge's lane as the client wrote it, when the bridge has one now. */
  #viaLane(request: JsonRpcRequest, id: JsonRpcId, line: Buffer): boolean {
    const lane = this.#options.bridge.lane?.();
    const params = request.params;
    if (lane === undefined || !isRecord(params) || typeof params['name'] !== 'string') {
      return false;
    }
    const args = params['arguments'] ?? {};
    const signal = new CancelSignal();
    let stopProgress = (): void => undefined;
    let answered = false;
    const done = (reply: Buffer | ToolResult | TabmuxError): void => {
      answered = true;
      stopProgress();
      if (this.#running.get(id) === signal) {
        this.#running.delete(id);
      }
      // A cancelled request gets no answer at all: the client has already forgotten it.
      if (signal.aborted) {
        return;
      }
      if (Buffer.isBuffer(reply)) {
        this.#writeLine(reply);
      } else if (reply instanceof TabmuxError) {
        const { code, message } = toolCallFailure(reply);
        this.#writeError(id, code, message);
      } else {
        this.#write({ jsonrpc: '2.0', id, result: reply });
      }
      this.#servedToolCall();
    };
    if (!isRecord(args) || !lane.call(id, line, args, done)) {
      return false;
    }
    this.#running.set(id, signal);
    signal.onCancel(() => lane.cancel(id));
    // A lane may answer before it returns; then there is nothing left to tell of.
    if (!answered) {
      stopProgress = this.#tellProgress(params, signal);
    }
    return true;
  }

  /** Progress notes for a running tool call whose client asked for them (see callProgress.ts); returns their stop. */
  #tellProgress(params: unknown, signal: CancelSignal): () => void {
    return tellProgress(params, signal, this.#options.progressEveryMs ?? PROGRESS_EVERY_MS, (progress) => this.#write({ jsonrpc: '2.0', method: 'notifications/progress', params: progress }));
  }

  #onNotification(request: JsonRpcRequest): void {
    const params = isRecord(request.params) ? request.params : {};
    if (request.method === 'notifications/initialized') {
      this.#options.bridge.setClientName(this.#clientName);
      this.#options.bridge.start();
    } else if (request.method === 'notifications/cancelled') {
      const id = params['requestId'];
      if (typeof id === 'string' || typeof id === 'number') {
        this.#running.get(id)?.cancel();
      }
    }
  }

  async #answer(request: JsonRpcRequest, id: JsonRpcId): Promise<void> {
    const signal = new CancelSignal();
    this.#running.set(id, signal);
    const stopProgress = request.method === 'tools/call' ? this.#tellProgress(request.params, signal) : (): void => undefined;
    try {
      const result = await this.#dispatch(request, signal);
      // A cancelled request gets no answer at all: the client has already forgotten it.
      if (signal.aborted) {
        return;
      }
      if (result instanceof RelayedResult) {
        this.#writeRelayed(id, result);
      } else {
        this.#write({ jsonrpc: '2.0', id, result });
      }
    } catch (error) {
      if (!signal.aborted) {
        const { code, message } = error instanceof McpFailure ? error : { code: INTERNAL_ERROR, message: TabmuxError.from(error).message };
        this.#writeError(id, code, message);
      }
    } finally {
      stopProgress();
      if (this.#running.get(id) === signal) {
        this.#running.delete(id);
      }
      if (request.method === 'tools/call') {
        this.#servedToolCall();
      }
    }
  }

  #servedToolCall(): void {
    const after = this.#options.afterFirstCall;
    if (this.#servedCall || after === undefined) {
      return;
    }
    this.#servedCall = true;
    setImmediate(after);
  }

  async #dispatch(request: JsonRpcRequest, signal: CancelSignal): Promise<unknown> {
    const params = request.params === undefined ? {} : request.params;
    if (!isRecord(params)) {
      throw new McpFailure(INVALID_PARAMS, 'params must be an object');
    }
    switch (request.method) {
      case 'initialize':
        return this.#initialize(params);
      case 'ping':
      case 'logging/setLevel':
        return {};
      case 'tools/list':
        try {
          return { tools: await this.#options.bridge.listTools() };
        } catch (error) {
          throw new McpFailure(INTERNAL_ERROR, TabmuxError.from(error).message);
        }
      case 'tools/call':
        return this.#callTool(params, signal);
      default:
        throw new McpFailure(METHOD_NOT_FOUND, 'Method not found');
    }
  }

  #initialize(params: Record<string, unknown>): unknown {
    const clientInfo = params['clientInfo'];
    if (isRecord(clientInfo) && typeof clientInfo['name'] === 'string') {
      this.#clientName = clientInfo['name'];
    }
    const requested = params['protocolVersion'];
    const protocolVersion = MCP_PROTOCOL_VERSIONS.find((version) => version === requested) ?? MCP_PROTOCOL_VERSIONS[0];
    const { sessionArg, severalBrowsers, version } = this.#options;
    return {
      protocolVersion,
      capabilities: { tools: { listChanged: true }, logging: {} },
      serverInfo: { name: 'tabmux', version },
      instructions: BRIDGE_INSTRUCTIONS.base + (sessionArg ? BRIDGE_INSTRUCTIONS.sessionArg : '') + (severalBrowsers ? BRIDGE_INSTRUCTIONS.severalBrowsers : ''),
    };
  }

  async #callTool(params: Record<string, unknown>, signal: CancelSignal): Promise<ToolResult | RelayedResult> {
    const name = params['name'];
    const args = params['arguments'] ?? {};
    if (typeof name !== 'string' || !isRecord(args)) {
      throw new McpFailure(INVALID_PARAMS, 'tools/call needs params.name (a string) and params.arguments (an object)');
    }
    const meta = params['_meta'];
    const token = isRecord(meta) ? meta['progressToken'] : undefined;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    let result: ToolResult | RelayedResult;
    try {
      result = await this.#options.bridge.callTool(name, args, { signal, progressToken });
    } catch (error) {
      throw toolCallFailure(error);
    }
    if (result instanceof RelayedResult || isWellFormed(result)) {
      return result;
    }
    this.#options.logger.warn(`${name} returned a result that is not valid MCP content`);
    return { content: [{ type: 'text', text: `Error: ${name} returned a malformed result; try the call again` }], isError: true };
  }

  #writeError(id: JsonRpcId | null, code: number, message: string): void {
    // The message alone, as upstream's server writes it: MCP clients put "MCP error CODE:" in front of what they show,
    // so a prefix on the wire would be shown twice.
    this.#write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  /** The reply around a result the daemon serialized: one write, the result's bytes copied once. */
  #writeRelayed(id: JsonRpcId, result: RelayedResult): void {
    const { output } = this.#options;
    if (!this.#closed && output.writable) {
      output.write(Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`), result.json, REPLY_END]));
    }
  }

  /** A whole reply line the daemon wrote under the client's own id. */
  #writeLine(line: Buffer): void {
    const { output } = this.#options;
    if (!this.#closed && output.writable) {
      output.write(Buffer.concat([line, NEWLINE]));
    }
  }

  #write(message: object): void {
    if (this.#closed) {
      return;
    }
    const { output } = this.#options;
    if (output.writable) {
      output.write(`${JSON.stringify(message)}\n`);
    }
  }
}

function trailingId(tail: string): JsonRpcId | undefined {
  const raw = TRAILING_ID.exec(tail)?.[1];
  if (raw === undefined) {
    return undefined;
  }
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON-RPC error with MCP's code, thrown inside a handler and written as the reply. */
class McpFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A tool call that failed outright: an unknown tool is the client's mistake, anything else the server's. */
function toolCallFailure(error: unknown): McpFailure {
  const failure = TabmuxError.from(error);
  return new McpFailure(failure.code === 'unknown_tool' ? INVALID_PARAMS : INTERNAL_ERROR, failure.message);
}

/** The content checks a client makes before it shows a result: every item typed, text items with their text. */
function isWellFormed(result: ToolResult): boolean {
  return result.content.every((item) => typeof item.type === 'string' && (item.type !== 'text' || typeof item.text === 'string'));
}
