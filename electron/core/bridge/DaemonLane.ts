import { createConnection, type Socket } from 'node:net';
import { TabmuxError } from '../../../shared/errors.js';
import { asResponse, type JsonRpcId } from '../../../shared/jsonrpc.js';
import { leadingId } from '../../../shared/leadingId.js';
import { PROTOCOL_VERSION } from '../../../shared/protocolConstants.js';
import type { Logger } from '../platform/Logger.js';
import { withDeadline } from '../../../shared/withDeadline.js';
import { HELLO_TIMEOUT_MS } from '../transport/DaemonClient.js';
import { LineDecoder } from '../transport/LineDecoder.js';
import { replyHead } from '../transport/replyHead.js';
import { MAX_REQUEST_LINE_BYTES, maxResponseBytes } from '../transport/socketLimits.js';

/** A reply as it came: the daemon's whole reply line for a successful call, or what went wrong. */
export type LaneReply = Buffer | TabmuxError;

const NEWLINE = Buffer.from('\n');
const NEWLINE_BYTE = 0x0a;
/** Enough of a reply line to read its id, which the daemon writes second, after `"jsonrpc":"2.0"`. */
const ID_HEAD_BYTES = 1024;
const HELLO_ID = 1;
const BIND_ID = 2;

/**
 * A daemon connection bound to one session that carries the MCP client's tool calls as the client wrote them, under
 * the client's own request ids, and gives back the daemon's reply lines unparsed: the stdio bridge then adds no work
 * to a call beyond finding where its lines end. Nothing else is sent on it, so the client's ids cannot meet ids of
 * the bridge's own. Each reply is matched to its call by the id the daemon writes at the start of the line, read by
 * JSON structure; a page's text later in the line is never read.
 */
export class DaemonLane {
  readonly #socket: Socket;
  readonly #logger: Logger;
  readonly #pending = new Map<JsonRpcId, (reply: LaneReply) => void>();
  /** Calls whose line the socket refused: the daemon was gone before they reached it, so none of them ran. */
  readonly #undelivered = new Set<JsonRpcId>();
  /** The call whose line was written last (undefined when a cancellation was): see the reset in the constructor. */
  #lastWritten: JsonRpcId | undefined;
  /** The start of a reply line whose end has not come yet, and its length. */
  #partial: Buffer[] = [];
  #partialBytes = 0;
  /** Skipping the rest of a line over the size limit. */
  #discarding = false;
  readonly #maxBytes: number;
  #open = true;

  private constructor(socket: Socket, maxBytes: number, logger: Logger) {
    this.#socket = socket;
    this.#maxBytes = maxBytes;
    this.#logger = logger;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A daemon that ends with bytes of ours unread leaves its end reset: what was written last it never read.
      if (error.code === 'ECONNRESET' && this.#lastWritten !== undefined) {
        this.#undelivered.add(this.#lastWritten);
      }
    });
    socket.on('close', () => this.#onClose());
  }

  /** Connects to the daemon's socket, says hello and binds the session: a bind the daemon refuses rejects with its error. */
  static async open(path: string, session: string, logger: Logger): Promise<DaemonLane> {
    const socket = createConnection({ path });
    socket.on('error', () => undefined);
    const maxBytes = maxResponseBytes();
    const decoder = new LineDecoder(maxBytes);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('close', () => reject(new TabmuxError('daemon_not_running', `no daemon answers on ${path}`)));
      });
      socket.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: HELLO_ID, method: 'tabmux/hello', params: { protocolVersion: PROTOCOL_VERSION, client: { name: 'tabmux-mcp-serve' } } })}\n` +
          `${JSON.stringify({ jsonrpc: '2.0', id: BIND_ID, method: 'tabmux/session.bind', params: { session } })}\n`,
      );
      await withDeadline(handshake(socket, decoder), HELLO_TIMEOUT_MS, 'late').then((outcome) => {
        if (outcome === 'late') {
          throw new TabmuxError('daemon_unresponsive', `the daemon on ${path} took the connection binding the session but did not answer within ${HELLO_TIMEOUT_MS / 1000} s: its process is stopped or stuck`);
        }
      });
    } catch (error) {
      socket.destroy();
      throw error;
    }
    socket.removeAllListeners('close');
    return new DaemonLane(socket, maxBytes, logger);
  }

  /** False once the connection is gone (the daemon stopped, or the lane was closed). */
  get open(): boolean {
    return this.#open;
  }

  /**
   * Sends one `tools/call` line (without its newline) as the client wrote it; `done` gets the reply, as soon as its
   * line is read. False when the lane cannot take it: closed, a call under the same id still on it, or a line longer
   * than the daemon reads (which it answers under the id it finds in the line's first bytes, and a client may write
   * the id last).
   */
  call(id: JsonRpcId, line: Buffer, done: (reply: LaneReply) => void): boolean {
    if (!this.#open || this.#pending.has(id) || line.length >= MAX_REQUEST_LINE_BYTES) {
      return false;
    }
    this.#pending.set(id, done);
    this.#lastWritten = id;
    this.#socket.write(Buffer.concat([line, NEWLINE]), (error) => {
      if (error) {
        this.#undelivered.add(id);
      }
    });
    return true;
  }

  /** Tells the daemon the client cancelled a call on this lane; its reply still settles the call. */
  cancel(id: JsonRpcId): void {
    if (this.#open && this.#pending.has(id)) {
      this.#lastWritten = undefined;
      this.#socket.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the MCP client cancelled the call' } })}\n`);
    }
  }

  close(): void {
    this.#socket.destroy();
  }

  /** Gives up on the daemon (it stopped answering): every call on the lane gets `error`, and the lane closes. */
  abandon(error: TabmuxError): void {
    // At once, not when the socket's close arrives: a call that comes meanwhile goes on a new lane.
    this.#open = false;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const settle of pending) {
      settle(error);
    }
    this.#socket.destroy();
  }

  /** Splits the daemon's bytes into lines; a line that came whole in one chunk is read where it lies, never copied. */
  #onData(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE_BYTE); end !== -1; end = chunk.indexOf(NEWLINE_BYTE, start)) {
      const piece = chunk.subarray(start, end);
      start = end + 1;
      if (this.#discarding) {
        this.#discarding = false;
      } else if (this.#partialBytes === 0 && piece.length <= this.#maxBytes) {
        this.#onLine(piece);
      } else if (this.#keep(piece)) {
        const line = Buffer.concat(this.#partial);
        this.#partial = [];
        this.#partialBytes = 0;
        this.#onLine(line);
      } else {
        // The line that went over the limit ends here.
        this.#discarding = false;
      }
    }
    if (start < chunk.length && !this.#discarding) {
      this.#keep(chunk.subarray(start));
    }
  }

  /**
   * Holds a part of a line; false when that takes the line over the size limit, which drops it (up to its end) and
   * tells its call why.
   */
  #keep(piece: Buffer): boolean {
    this.#partial.push(piece);
    this.#partialBytes += piece.length;
    if (this.#partialBytes <= this.#maxBytes) {
      return true;
    }
    const head = Buffer.concat(this.#partial).toString('utf8', 0, ID_HEAD_BYTES);
    this.#partial = [];
    this.#partialBytes = 0;
    this.#discarding = true;
    const id = leadingId(head);
    const settle = id === undefined ? undefined : this.#take(id);
    const error = new TabmuxError('response_too_large', `the reply was longer than this client's ${this.#maxBytes}-byte limit and was dropped`);
    if (settle) {
      settle(error);
    } else {
      this.#logger.warn(`dropped a line from the daemon: ${error.message}`);
    }
    return false;
  }

  #onLine(line: Buffer): void {
    const head = replyHead(line);
    const id = head?.id ?? leadingId(line.toString('utf8', 0, ID_HEAD_BYTES)) ?? idOf(line);
    const settle = id === undefined ? undefined : this.#take(id);
    if (!settle) {
      // The daemon sends a bound connection nothing but replies; anything else has no call to go to.
      return;
    }
    if (head?.resultAt !== undefined) {
      settle(line);
      return;
    }
    settle(errorOf(line) ?? new TabmuxError('internal', 'the daemon answered a tool call with a malformed reply'));
  }

  #take(id: JsonRpcId): ((reply: LaneReply) => void) | undefined {
    const settle = this.#pending.get(id);
    this.#pending.delete(id);
    return settle;
  }

  #onClose(): void {
    this.#open = false;
    const lost = new TabmuxError('daemon_not_running', 'the daemon closed the connection (it may have stopped or crashed; see tabmux daemon status)');
    const undelivered = new TabmuxError('not_delivered', 'the daemon was gone before the call reached it, so it did not run');
    // A write the closed socket refused, or a reset, has said so before the close: a call the daemon never got is
    // not told it may have run.
    for (const [id, settle] of this.#pending) {
      settle(this.#undelivered.has(id) ? undelivered : lost);
    }
    this.#pending.clear();
    this.#undelivered.clear();
  }
}

/** Reads the replies to the hello and the bind; the first error among them rejects. */
async function handshake(socket: Socket, decoder: LineDecoder): Promise<void> {
  const replies = new Map<JsonRpcId, TabmuxError | undefined>();
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      for (const raw of decoder.push(chunk)) {
        const response = 'line' in raw ? parseResponse(raw.line) : undefined;
        if (response?.id === HELLO_ID || response?.id === BIND_ID) {
          replies.set(response.id, 'error' in response ? TabmuxError.fromWire(response.error) : undefined);
        }
      }
      if (replies.size === 2) {
        socket.off('data', onData);
        const failure = replies.get(HELLO_ID) ?? replies.get(BIND_ID);
        if (failure) {
          reject(failure);
        } else {
          resolve();
        }
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new TabmuxError('daemon_not_running', 'the daemon closed the connection while binding the session')));
  });
}

function parseResponse(line: string): ReturnType<typeof asResponse> {
  try {
    return asResponse(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/** The id of a line whose head did not show one (an id longer than the head): the whole line is read. */
function idOf(line: Buffer): JsonRpcId | undefined {
  const response = parseResponse(line.toString('utf8'));
  return response?.id ?? undefined;
}

function errorOf(line: Buffer): TabmuxError | undefined {
  const response = parseResponse(line.toString('utf8'));
  return response && 'error' in response ? TabmuxError.fromWire(response.error) : undefined;
}
