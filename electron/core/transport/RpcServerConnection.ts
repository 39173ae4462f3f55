import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import { asRequest, type JsonRpcId, type JsonRpcRequest } from '../../../shared/jsonrpc.js';
import { leadingId } from '../../../shared/leadingId.js';
import type { Logger } from '../platform/Logger.js';

/** What a message is, so a transport can treat pushed events differently from replies under back-pressure. */
export type MessageKind = 'reply' | 'event';

export interface RpcServerConnectionOptions {
  /** Writes one serialized message; the transport adds its framing. */
  write: (text: string, kind: MessageKind) => void;
  /** Runs one request; the result (or the thrown error) becomes the reply. */
  dispatch: (request: JsonRpcRequest) => Promise<unknown>;
  logger: Logger;
  /** Longest message this side sends; a longer reply is replaced by a `response_too_large` error. */
  maxMessageBytes: number;
}

/**
 * The serving side of JSON-RPC 2.0 over one connection, whatever carries it (the daemon socket, the dashboard's
 * WebSocket): parses each message, hands requests to the dispatcher and writes the replies, in any order. A bad
 * message gets an error reply and costs nothing else; a reply too large to send becomes an error the caller can
 * match by its id, never a line the client cannot read.
 */
export class RpcServerConnection {
  readonly #options: RpcServerConnectionOptions;
  /** Requests handed to the dispatcher and not answered yet. */
  #pending = 0;
  #onAnswered: (() => void)[] = [];

  constructor(options: RpcServerConnectionOptions) {
    this.#options = options;
  }

  /** One incoming message as text. */
  handleText(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      const detail = error instanceof RangeError ? 'nested too deeply' : 'not valid JSON';
      this.#replyError(null, new TabmuxError('parse_error', `message is ${detail}; send one JSON-RPC 2.0 object per message`));
      return;
    }
    const request = asRequest(json);
    if (typeof request === 'string') {
      const id = isRecord(json) && (typeof json['id'] === 'string' || typeof json['id'] === 'number') ? json['id'] : null;
      this.#replyError(id, new TabmuxError('invalid_request', request));
      return;
    }
    void this.#answer(request);
  }

  /** A message the transport dropped unread (too long, not UTF-8); the reply names its id when the head shows it. */
  handleUnreadable(error: TabmuxError, head: string): void {
    this.#replyError(leadingId(head) ?? null, error);
  }

  /** Pushes a notification (an event). One too large to send is dropped and logged: events are only ever hints. */
  notify(method: string, params: unknown): void {
    const text = this.#serialize({ jsonrpc: '2.0', method, params });
    if (text === undefined) {
      this.#options.logger.warn(`dropped a ${method} notification over the ${this.#options.maxMessageBytes}-byte message limit`);
      return;
    }
    this.#options.write(text, 'event');
  }

  /** Resolves once every request this connection handed on so far has been answered (at once when none waits). */
  whenAnswered(): Promise<void> {
    return this.#pending === 0 ? Promise.resolve() : new Promise((resolve) => this.#onAnswered.push(resolve));
  }

  async #answer(request: JsonRpcRequest): Promise<void> {
    this.#pending++;
    try {
      let result: unknown;
      try {
        result = await this.#options.dispatch(request);
      } catch (error) {
        const failure = TabmuxError.from(error);
        if (!failure.expected) {
          this.#options.logger.error(`${request.method} failed: ${failure.message}`);
        }
        if (request.id !== undefined) {
          this.#replyError(request.id, failure);
        }
        return;
      }
      this.#reply(request, result);
    } finally {
      this.#pending--;
      if (this.#pending === 0 && this.#onAnswered.length > 0) {
        const waiting = this.#onAnswered;
        this.#onAnswered = [];
        waiting.forEach((resolve) => resolve());
      }
    }
  }

  #reply(request: JsonRpcRequest, result: unknown): void {
    const { id } = request;
    if (id === undefined) {
      return;
    }
    let text: string | undefined;
    try {
      text = this.#serialize({ jsonrpc: '2.0', id, result });
    } catch (error) {
      const failure = TabmuxError.from(error);
      this.#options.logger.error(`the reply to ${request.method} cannot be written as JSON: ${failure.message}`);
      this.#replyError(id, failure);
      return;
    }
    if (text !== undefined) {
      this.#options.write(text, 'reply');
      return;
    }
    const limit = this.#options.maxMessageBytes;
    this.#options.logger.warn(`the reply to ${describe(request)} was over the ${limit}-byte limit; answered response_too_large instead`);
    this.#replyError(
      id,
      new TabmuxError(
        'response_too_large',
        `the reply to ${describe(request)} is larger than the ${limit}-byte message limit, so it was not sent. Ask for less: ` +
          'take_snapshot with filePath writes the snapshot to a file, and evaluate_script can return a smaller value.',
      ),
    );
  }

  #replyError(id: JsonRpcId | null, error: TabmuxError): void {
    this.#options.write(JSON.stringify({ jsonrpc: '2.0', id, error: error.toWire() }), 'reply');
  }

  /** The message as one line, or undefined when it is over the limit (or too large for a string at all). */
  #serialize(message: object): string | undefined {
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      if (error instanceof RangeError) {
        return undefined;
      }
      throw error;
    }
    // Cheap first: a UTF-8 encoding is at most three bytes per UTF-16 unit and at least one.
    if (text.length * 3 <= this.#options.maxMessageBytes) {
      return text;
    }
    return text.length <= this.#options.maxMessageBytes && Buffer.byteLength(text) <= this.#options.maxMessageBytes ? text : undefined;
  }
}

/** The method, and the tool for a tool call, so the error says which call was too large. */
function describe(request: JsonRpcRequest): string {
  const params = request.params;
  if ((request.method === 'tools/call' || request.method === 'tabmux/call') && isRecord(params) && typeof params['name'] === 'string') {
    return `${request.method} ${params['name']}`;
  }
  return request.method;
}
