import type { JsonRpcId } from '../../../shared/jsonrpc.js';
import type { Socket } from 'node:net';
import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import type { DaemonEvent, SessionInfo } from '../../../shared/model.js';
import type { ControlInput, ControlMethod, ControlResults, HelloResult, ToolInfo } from '../../../shared/protocol.js';
import { EVENT_METHOD, PROTOCOL_VERSION, RESTART_DRAIN_MS } from '../../../shared/protocolConstants.js';
import { RpcClientCore } from '../../../shared/RpcClientCore.js';
import { withDeadline } from '../../../shared/withDeadline.js';
import { LineDecoder } from './LineDecoder.js';
import { replyHead } from './replyHead.js';
import { loadedProtocolSchemas, loadProtocolSchemas, type ProtocolSchemas } from './protocolSchemas.js';
import { BUSY_TIMEOUT_MS, openSocket } from './openSocket.js';
import { maxResponseBytes } from './socketLimits.js';
import { DaemonAnswers, stoppedAnswering } from './DaemonAnswers.js';

export interface DaemonClientOptions {
  clientName?: string;
  /** Longest reply line read; a longer one fails its call with `response_too_large`. Defaults to the socket limit. */
  maxResponseBytes?: number;
  /** How long a busy socket (EAGAIN) is tried again before `daemon_busy`; see BUSY_TIMEOUT_MS. */
  busyTimeoutMs?: number;
  /** Says in the hello that this connection only looks, so it does not keep an idle daemon (see `tabmux/hello`). */
  looksOnly?: boolean;
  /** How long the hello's answer is waited for before `daemon_unresponsive`; see HELLO_TIMEOUT_MS. */
  helloTimeoutMs?: number;
  /**
   * Whether requests give up on a daemon that stops answering while they wait (see DaemonAnswers); on unless a caller
   * watches the daemon's answers itself.
   */
  watchAnswers?: boolean;
}

/**
 * How long a connected client waits for the daemon's hello: a daemon answers it at once from its event loop, so one
 * that does not within this is stopped (SIGSTOP) or stuck, and the caller is told so rather than left waiting.
 */
export const HELLO_TIMEOUT_MS = 10_000;

/** How long a call a restart kept from running waits for that daemon to let its connection go (it lets the calls under way finish first). */
const RESTART_LET_GO_MS = RESTART_DRAIN_MS + 20_000;

/**
 * A connection to one profile daemon: typed control calls (results checked against the protocol's schemas), raw
 * MCP requests on a bound connection, and pushed events. Used by the CLI, the stdio bridge and the supervisor.
 */
export class DaemonClient {
  readonly hello: HelloResult;
  /** The daemon socket this client is connected to. */
  readonly path: string;
  readonly #socket: Socket;
  readonly #rpc: RpcClientCore;
  readonly #eventListeners = new Set<(event: DaemonEvent) => void>();
  readonly #closeListeners = new Set<() => void>();
  readonly #notificationListeners = new Set<(method: string, params: unknown) => void>();
  /** Requests whose successful result is wanted as the bytes the daemon wrote, not parsed. */
  readonly #relayed = new Set<number>();
  #closed = false;
  #answers: DaemonAnswers | undefined;
  #abandonedWith: TabmuxError | undefined;
  /** Requests whose line the socket refused (see the close handler). */
  readonly #undelivered = new Set<JsonRpcId>();
  /** The request written last (undefined when a notification was): see the reset in the error handler. */
  #lastWritten: JsonRpcId | undefined;

  private constructor(socket: Socket, path: string, maxBytes: number) {
    this.#socket = socket;
    this.path = path;
    this.hello = { protocolVersion: PROTOCOL_VERSION, version: '', profile: '', pid: 0 };
    this.#rpc = new RpcClientCore({
      send: (text, id) => {
        this.#lastWritten = id;
        this.#socket.write(`${text}\n`, (error) => {
          if (error && id !== undefined) {
            this.#undelivered.add(id);
          }
        });
      },
      onNotification: (method, params) => this.#onNotification(method, params),
    });
    this.#wire(maxBytes);
  }

  static async connect(path: string, clientName = 'tabmux-cli', options: Omit<DaemonClientOptions, 'clientName'> = {}): Promise<DaemonClient> {
    const socket = await openSocket(path, options.busyTimeoutMs ?? BUSY_TIMEOUT_MS);
    const client = new DaemonClient(socket, path, options.maxResponseBytes ?? maxResponseBytes());
    const helloTimeoutMs = options.helloTimeoutMs ?? HELLO_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const unanswered = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new TabmuxError(
              'daemon_unresponsive',
              `the daemon on ${path} took this connection but did not answer within ${helloTimeoutMs / 1000} s: its process is stopped or stuck; tabmux daemon stop ends it`,
            ),
          ),
        helloTimeoutMs,
      );
    });
    try {
      // Checked by hand rather than by schema: the hello is all a short-lived client may need before its first call.
      const hello = asHelloResult(
        await Promise.race([
          client.request('tabmux/hello', { protocolVersion: PROTOCOL_VERSION, client: { name: clientName }, ...(options.looksOnly === true ? { looksOnly: true } : {}) }),
          unanswered,
        ]),
      );
      Object.assign(client, { hello });
      if (options.watchAnswers !== false) {
        client.#watchAnswers(helloTimeoutMs);
      }
    } catch (error) {
      client.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return client;
  }

  /** True once the connection closed, or was given up on (then at once, before its socket's close arrives). */
  get closed(): boolean {
    return this.#closed || this.#abandonedWith !== undefined;
  }

  /** A control call; the result is checked against the method's schema, so a daemon of another version cannot slip a wrong shape through. */
  async call<M extends ControlMethod>(method: M, params?: ControlInput<M>): Promise<ControlResults[M]> {
    const [result, schemas] = await Promise.all([this.request(method, params ?? {}), loadProtocolSchemas()]);
    const parsed = schemas.controlResultSchema(method).safeParse(result);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
      throw unexpectedShape(method, `${issue?.message ?? 'malformed'}${where}`);
    }
    return parsed.data;
  }

  /**
   * `tabmux/tools.list`, checked by hand: the stdio bridge answers its client's first `tools/list` with this, and
   * the client checks every tool again, so the schema library need not load first.
   */
  async listTools(sessionArg: boolean): Promise<ToolInfo[]> {
    const result = await this.request('tabmux/tools.list', sessionArg ? { sessionArg: true } : {});
    const tools = isRecord(result) ? result['tools'] : undefined;
    if (!Array.isArray(tools) || !tools.every(isToolInfo)) {
      throw unexpectedShape('tabmux/tools.list', 'not a list of tools with an object input schema');
    }
    return tools;
  }

  /**
   * The session calls a bridge makes on its way in and out, checked by hand for the fields it reads, like the hello
   * and `tools/list`: a bridge then never loads the schema library at all. The daemon is the same tabmux (the hello
   * says which), and a reply of another shape is still refused.
   */
  async createSession(label?: string): Promise<Pick<SessionInfo, 'id' | 'label'>> {
    return asSessionRef('tabmux/session.create', await this.request('tabmux/session.create', label === undefined ? {} : { label }));
  }

  /** Binds this connection to a session; see `createSession` for how the reply is checked. */
  async bindSession(session: string): Promise<void> {
    const bound = asSessionRef('tabmux/session.bind', await this.request('tabmux/session.bind', { session }));
    if (bound.id !== session) {
      throw unexpectedShape('tabmux/session.bind', `session ${bound.id} instead of ${session}`);
    }
  }

  /** Closes a session; see `createSession` for how the reply is checked. */
  async closeSession(session: string): Promise<{ closedPages: number[] }> {
    const result = await this.request('tabmux/session.close', { session });
    const closedPages = isRecord(result) ? result['closedPages'] : undefined;
    if (!Array.isArray(closedPages) || !closedPages.every((pageId) => typeof pageId === 'number')) {
      throw unexpectedShape('tabmux/session.close', 'closedPages, a list of page ids, expected');
    }
    return { closedPages };
  }

  /** Sends any JSON-RPC request (MCP methods on a bound connection) and resolves with its result. */
  request(method: string, params?: unknown): Promise<unknown> {
    if (this.closed) {
      return Promise.reject(new TabmuxError('daemon_not_running', 'the connection to the daemon is closed'));
    }
    const back = this.#answers?.begin();
    const reply = this.#rpc.request(method, params);
    if (back) {
      void reply.then(back, back);
    }
    return reply;
  }

  /** While requests wait, the daemon is asked an MCP ping every few seconds; one unanswered in time gives up on it. */
  #watchAnswers(answerWithinMs: number): void {
    this.#answers = new DaemonAnswers({
      ask: () => (this.#closed ? undefined : this.#rpc.request('ping', {})),
      onUnanswered: () => this.abandon(stoppedAnswering(this.hello.profile, this.hello.pid)),
      answerWithinMs,
    });
  }

  /** Why this connection was given up (see `abandon`); undefined while it was not. */
  get abandonedWith(): TabmuxError | undefined {
    return this.#abandonedWith;
  }

  /**
   * Like `request`, but the result comes back as the JSON bytes the daemon wrote for it, unparsed and not decoded,
   * for a caller that passes it on as it is (the stdio bridge). An error reply rejects as with `request`.
   */
  async relay(method: string, params?: unknown): Promise<Buffer> {
    const id = this.#rpc.nextId;
    this.#relayed.add(id);
    try {
      const result = await this.request(method, params);
      // A reply not in the daemon's own layout was parsed on the ordinary path; its result is written out again.
      return Buffer.isBuffer(result) ? result : Buffer.from(JSON.stringify(result));
    } finally {
      this.#relayed.delete(id);
    }
  }

  notify(method: string, params?: unknown): void {
    if (!this.closed) {
      this.#rpc.notify(method, params);
    }
  }

  /** Id of the next request, so a caller can later cancel it with notifications/cancelled. */
  get nextRequestId(): number {
    return this.#rpc.nextId;
  }

  onEvent(listener: (event: DaemonEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /** Notifications from the daemon other than tabmux events, such as MCP progress on a bound connection. */
  onNotification(listener: (method: string, params: unknown) => void): () => void {
    this.#notificationListeners.add(listener);
    return () => this.#notificationListeners.delete(listener);
  }

  onClose(listener: () => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /**
   * Resolves once the daemon has let this connection go, as a daemon being restarted does once it has answered the
   * calls under way (see `daemon_restarting`), or after `timeoutMs`: a call it kept from running goes to the next
   * daemon after that.
   */
  async whenLetGo(timeoutMs = RESTART_LET_GO_MS): Promise<void> {
    if (this.closed) {
      return;
    }
    let off: () => void = () => undefined;
    await withDeadline(new Promise<void>((resolve) => (off = this.onClose(resolve))), timeoutMs, 'late');
    off();
  }

  close(): void {
    this.#socket.end();
    this.#socket.destroy();
  }

  /** Gives up on the daemon (it stopped answering): every request still out fails with `error`, and the connection closes. */
  abandon(error: TabmuxError): void {
    this.#abandonedWith ??= error;
    this.#rpc.failAll(error);
    this.close();
  }

  #wire(maxBytes: number): void {
    const decoder = new LineDecoder(maxBytes);
    this.#socket.on('data', (chunk: Buffer) => {
      for (const raw of decoder.pushBytes(chunk)) {
        if ('bytes' in raw && this.#relayed.size > 0 && this.#passOn(raw.bytes)) {
          continue;
        }
        const decoded = 'bytes' in raw ? decoder.decode(raw.bytes) : raw;
        if ('line' in decoded) {
          this.#rpc.handleText(decoded.line);
        } else {
          const error =
            decoded.error.code === 'line_too_long'
              ? new TabmuxError('response_too_large', `it was longer than this client's ${maxBytes}-byte limit; ask for less (take_snapshot with filePath, a smaller evaluate_script result)`)
              : decoded.error;
          this.#rpc.handleUnreadable(decoded.head, error);
        }
      }
    });
    this.#socket.on('error', (error: NodeJS.ErrnoException) => {
      // A daemon that ends with bytes of ours unread leaves its end reset: what was written last it never read.
      if (error.code === 'ECONNRESET' && this.#lastWritten !== undefined) {
        this.#undelivered.add(this.#lastWritten);
      }
    });
    this.#socket.on('close', () => {
      this.#closed = true;
      this.#answers?.dispose();
      // A write the closed socket refused, or a reset, has said so before the close: those requests never reached
      // the daemon, and are not told they may have run.
      this.#rpc.failSome(this.#undelivered, new TabmuxError('not_delivered', 'the daemon was gone before the request reached it, so it did not run'));
      this.#undelivered.clear();
      this.#rpc.failAll(new TabmuxError('daemon_not_running', 'the daemon closed the connection (it may have stopped or crashed; see tabmux daemon status)'));
      for (const listener of this.#closeListeners) {
        listener();
      }
    });
  }

  /** Settles a relayed call with its result's bytes when the line is its successful reply in the daemon's layout. */
  #passOn(line: Buffer): boolean {
    const reply = relayedReply(line);
    return reply !== undefined && this.#relayed.has(reply.id) && this.#rpc.resolveWith(reply.id, reply.result);
  }

  #onNotification(method: string, params: unknown): void {
    if (method === EVENT_METHOD) {
      // Events come only after tabmux/subscribe, whose reply loaded the schemas; the wait is for the odd early one.
      const schemas = loadedProtocolSchemas();
      if (schemas) {
        this.#onEvent(schemas, params);
      } else {
        void loadProtocolSchemas().then((loaded) => this.#onEvent(loaded, params));
      }
      return;
    }
    for (const listener of this.#notificationListeners) {
      listener(method, params);
    }
  }

  #onEvent(schemas: ProtocolSchemas, params: unknown): void {
    const event = schemas.daemonEventSchema.safeParse(params);
    if (event.success) {
      for (const listener of this.#eventListeners) {
        listener(event.data);
      }
    }
  }
}

const CLOSING_BRACE = 0x7d;

/**
 * The id and the result's bytes of a successful reply laid out as the daemon writes one (see `replyHead`): the
 * result is everything between the result key and the closing brace, a complete JSON value. Undefined for any other
 * line (errors, notifications, another layout), which is read on the ordinary path.
 */
function relayedReply(line: Buffer): { id: number; result: Buffer } | undefined {
  const head = line[line.length - 1] === CLOSING_BRACE ? replyHead(line) : undefined;
  if (typeof head?.id !== 'number' || head.resultAt === undefined || head.resultAt >= line.length - 1) {
    return undefined;
  }
  return { id: head.id, result: line.subarray(head.resultAt, line.length - 1) };
}

function unexpectedShape(method: string, detail: string): TabmuxError {
  return new TabmuxError(
    'protocol_mismatch',
    `the daemon answered ${method} with an unexpected shape (${detail}); it may run another tabmux version: restart it with tabmux daemon stop, then start`,
  );
}

function asHelloResult(value: unknown): HelloResult {
  if (
    isRecord(value) &&
    typeof value['protocolVersion'] === 'number' &&
    typeof value['version'] === 'string' &&
    typeof value['profile'] === 'string' &&
    typeof value['pid'] === 'number'
  ) {
    return { protocolVersion: value['protocolVersion'], version: value['version'], profile: value['profile'], pid: value['pid'] };
  }
  throw unexpectedShape('tabmux/hello', 'protocolVersion, version, profile and pid expected');
}

function asSessionRef(method: string, value: unknown): Pick<SessionInfo, 'id' | 'label'> {
  if (isRecord(value) && typeof value['id'] === 'string' && (value['label'] === null || typeof value['label'] === 'string')) {
    return { id: value['id'], label: value['label'] };
  }
  throw unexpectedShape(method, 'a session with an id and a label expected');
}

function isToolInfo(value: unknown): value is ToolInfo {
  if (!isRecord(value) || typeof value['name'] !== 'string') {
    return false;
  }
  const input = value['inputSchema'];
  return isRecord(input) && input['type'] === 'object' && (value['description'] === undefined || typeof value['description'] === 'string');
}
