import { isRecord } from '../../../shared/isRecord.js';
import type { JsonRpcId, JsonRpcMessage } from '../../../shared/jsonrpc.js';
import type { UpstreamStdioTransport } from './UpstreamStdioTransport.js';

/** The MCP versions this client speaks, newest first; it asks for the newest, as the pinned MCP SDK's client does. */
const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;
const METHOD_NOT_FOUND = -32601;

/** How long the handshake may take, as with the SDK's default request timeout. */
const INITIALIZE_TIMEOUT_MS = 60_000;

/** A JSON-RPC error from the server (or the connection), worded as the MCP SDK words it: `MCP error CODE: message`. */
export class UpstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`MCP error ${code}: ${message}`);
  }
}

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The MCP client side of one upstream child: the initialize handshake, numbered requests matched to their answers,
 * and the few requests a server may send (ping). Results are handed over as they came, for the caller to narrow
 * (`asToolResult`); the MCP SDK's client would check each against its schemas, which costs every call time and the
 * daemon several MiB of memory, for a server whose replies the router reads by their structure anyway.
 */
export class UpstreamRpc {
  onclose: (() => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  readonly #transport: UpstreamStdioTransport;
  readonly #pending = new Map<JsonRpcId, Pending>();
  #nextId = 0;

  constructor(transport: UpstreamStdioTransport) {
    this.#transport = transport;
    transport.onmessage = (message) => this.#onMessage(message);
    transport.onerror = (error) => this.onerror?.(error);
    transport.onclose = () => {
      const pending = [...this.#pending.values()];
      this.#pending.clear();
      for (const call of pending) {
        clearTimeout(call.timer);
        call.reject(new UpstreamRpcError(CONNECTION_CLOSED, 'Connection closed'));
      }
      this.onclose?.();
    };
  }

  /** Starts the child (unless it was started ahead of time) and runs the MCP handshake. */
  async connect(clientInfo: { name: string; version: string }): Promise<void> {
    if (!this.#transport.started) {
      await this.#transport.start();
    }
    const result = await this.request('initialize', { protocolVersion: PROTOCOL_VERSIONS[0], capabilities: {}, clientInfo }, INITIALIZE_TIMEOUT_MS);
    const version = isRecord(result) ? result['protocolVersion'] : undefined;
    if (typeof version !== 'string' || !PROTOCOL_VERSIONS.includes(version)) {
      throw new Error(`Server's protocol version is not supported: ${String(version)}`);
    }
    await this.#transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** Sends a request and resolves with its result; an error answer, a timeout or a closed connection rejects. */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.#pending.delete(id);
              this.#transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'timed out' } }).catch(() => undefined);
              reject(new UpstreamRpcError(REQUEST_TIMEOUT, 'Request timed out'));
            }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.#transport.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }).catch((error: unknown) => {
        if (this.#pending.delete(id)) {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
  }

  close(): Promise<void> {
    return this.#transport.close();
  }

  #onMessage(message: JsonRpcMessage): void {
    if ('method' in message) {
      // Requests from the server: ping is answered; a client with no capabilities serves nothing else.
      if (message.id !== undefined) {
        const reply: JsonRpcMessage =
          message.method === 'ping'
            ? { jsonrpc: '2.0', id: message.id, result: {} }
            : { jsonrpc: '2.0', id: message.id, error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
        this.#transport.send(reply).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
      }
      return;
    }
    const pending = message.id === null ? undefined : this.#pending.get(message.id);
    if (!pending || message.id === null) {
      this.onerror?.(new Error(`Received a response for an unknown message ID: ${JSON.stringify(message.id)}`));
      return;
    }
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if ('error' in message) {
      pending.reject(new UpstreamRpcError(message.error.code, message.error.message));
    } else {
      pending.resolve(message.result);
    }
  }
}
