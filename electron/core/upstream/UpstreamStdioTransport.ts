import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, Writable } from 'node:stream';
import { isRecord } from '../../../shared/isRecord.js';
import { asRequest, asResponse, type JsonRpcId, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { LineDecoder } from '../transport/LineDecoder.js';
import { droppedAnswerId } from './droppedAnswerId.js';
import { inheritedEnvironment } from './inheritedEnvironment.js';

/**
 * The JSON-RPC error code (in the implementation-defined -32000 range) of the answer this transport puts in place of
 * one longer than its limit; the caller turns it into `response_too_large`.
 */
export const RESPONSE_TOO_LARGE_CODE = -32070;

/** The code of the answer put in place of one that was not valid UTF-8. */
const UNREADABLE_ANSWER_CODE = -32071;

/** How many last bytes of a dropped line are kept: the server's envelope (`"jsonrpc":"2.0","id":N}`) is in them. */
const TAIL_BYTES = 256;

/** How long close waits after ending stdin, and again after SIGTERM, as the SDK's stdio transport does. */
const CLOSE_STEP_MS = 2_000;

export interface UpstreamStdioOptions {
  command: string;
  args?: readonly string[];
  /** Added to the default environment (the few variables deemed safe to inherit, as the MCP SDK picks them). */
  env?: Record<string, string>;
  cwd?: string;
  /** The longest line read from the child's stdout; a longer answer fails only its own call. */
  maxMessageBytes: number;
  /**
   * Give the child a fourth pipe (fd 3) on which `sendCommand` later writes its command line: for a worker started
   * before the browser it will drive is known (see electron/bin/upstreamLauncher.ts).
   */
  commandPipe?: boolean;
}

/**
 * A client-side MCP transport over a child's stdio, spawned the way the SDK's `StdioClientTransport` spawns it, with
 * three differences. It checks each message's JSON-RPC envelope by hand, without building the SDK's schemas (the
 * daemon's start-up time and memory); and two that matter for a child whose answers a web page sizes. A long line costs linear time (its parts
 * are joined once, where the SDK copies the whole buffer at every chunk), and a line over the limit costs only the
 * call it answers: that call gets an error answer, and the stream and the child keep serving everyone else (the SDK
 * closes the transport).
 */
export class UpstreamStdioTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JsonRpcMessage) => void) | undefined;

  #process: ChildProcess | undefined;
  #started = false;
  readonly #stderr = new PassThrough();
  readonly #options: UpstreamStdioOptions;
  readonly #decoder: LineDecoder;
  /** Requests sent and not answered yet, oldest first. */
  readonly #waiting = new Set<JsonRpcId>();

  constructor(options: UpstreamStdioOptions) {
    this.#options = options;
    this.#decoder = new LineDecoder(options.maxMessageBytes, { tailBytes: TAIL_BYTES });
  }

  /** The child's stderr; available before `start` so that nothing it writes early is lost. */
  get stderr(): PassThrough {
    return this.#stderr;
  }

  get pid(): number | null {
    return this.#process?.pid ?? null;
  }

  /** Whether `start` was called: a transport starts its child once. */
  get started(): boolean {
    return this.#started;
  }

  start(): Promise<void> {
    if (this.#started) {
      throw new Error('UpstreamStdioTransport already started');
    }
    this.#started = true;
    return new Promise<void>((resolve, reject) => {
      const child = spawn(this.#options.command, [...(this.#options.args ?? [])], {
        env: { ...inheritedEnvironment(), ...this.#options.env },
        stdio: this.#options.commandPipe === true ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: process.platform === 'win32',
        cwd: this.#options.cwd,
      });
      this.#process = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        this.#process = undefined;
        this.#waiting.clear();
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.pipe(this.#stderr);
    });
  }

  /** Whether the child runs: started, and not exited or closed since. */
  get running(): boolean {
    const child = this.#process;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Writes the child's command line on its fd 3 as one JSON line, once, and closes the pipe. */
  sendCommand(command: readonly string[]): void {
    const pipe = this.#commandPipe();
    if (!pipe || !pipe.writable) {
      throw new Error('this child has no command pipe open');
    }
    pipe.end(`${JSON.stringify(command)}\n`);
  }

  #commandPipe(): Writable | undefined {
    const pipe = this.#process?.stdio[3];
    return pipe instanceof Writable ? pipe : undefined;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (!stdin) {
      throw new Error('Not connected');
    }
    this.#track(message);
    if (!stdin.write(`${JSON.stringify(message)}\n`)) {
      await new Promise<void>((resolve) => stdin.once('drain', resolve));
    }
  }

  /**
   * Ends the child at once (SIGKILL), for a child stuck in a call it will not finish: asking it to exit would wait on
   * the very work that is stuck. `close` then finds it gone.
   */
  kill(): void {
    const child = this.#process;
    if (child && child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }

  /** Ends stdin and waits; then SIGTERM and waits; then SIGKILL: the sequence of the SDK's stdio transport. */
  async close(): Promise<void> {
    const child = this.#process;
    if (!child) {
      return;
    }
    this.#process = undefined;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const step = (): Promise<void> => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_STEP_MS).unref())]);
    try {
      child.stdin?.end();
      // A child still waiting for its command line takes the closed pipe as the end.
      const pipe = child.stdio[3];
      if (pipe instanceof Writable) {
        pipe.end();
      }
    } catch {
      // Already gone: the waits below see it.
    }
    await step();
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (child.exitCode !== null || child.signalCode !== null) {
        return;
      }
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
      if (signal === 'SIGTERM') {
        await step();
      }
    }
  }

  #track(message: JsonRpcMessage): void {
    if (!('method' in message)) {
      return;
    }
    if (message.id !== undefined) {
      this.#waiting.add(message.id);
    } else if (message.method === 'notifications/cancelled' && isRecord(message.params)) {
      // A cancelled request gets no answer; it must not be the one a later unreadable line is blamed on.
      const requestId = message.params['requestId'];
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        this.#waiting.delete(requestId);
      }
    }
  }

  #read(chunk: Buffer): void {
    for (const decoded of this.#decoder.push(chunk)) {
      if ('line' in decoded) {
        this.#deliver(decoded.line);
        continue;
      }
      const found = droppedAnswerId(decoded.head, decoded.tail, this.#waiting);
      if (found.kind === 'not_an_answer') {
        this.onerror?.(new Error(`a message from the server was dropped: ${decoded.error.message}`));
        continue;
      }
      const id = found.kind === 'answer' ? found.id : this.#oldestWaiting();
      if (id === undefined) {
        this.onerror?.(new Error(`a line answering no waiting request was dropped: ${decoded.error.message}`));
        continue;
      }
      const tooLong = decoded.error.code === 'line_too_long';
      this.#answer({
        jsonrpc: '2.0',
        id,
        error: tooLong
          ? { code: RESPONSE_TOO_LARGE_CODE, message: `the answer was longer than ${this.#options.maxMessageBytes} bytes and was dropped` }
          : { code: UNREADABLE_ANSWER_CODE, message: `the answer could not be read: ${decoded.error.message}` },
      });
    }
  }

  /** A line that is not a JSON-RPC message is reported and skipped, as the SDK's transport does. */
  #deliver(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const message = isRecord(json) && 'method' in json ? asRequest(json) : asResponse(json);
    if (message === undefined || typeof message === 'string') {
      this.onerror?.(new Error(`the server wrote a line that is not a JSON-RPC message${typeof message === 'string' ? ` (${message})` : ''}`));
      return;
    }
    this.#answer(message);
  }

  #answer(message: JsonRpcMessage): void {
    if (!('method' in message) && message.id !== null) {
      this.#waiting.delete(message.id);
    }
    this.onmessage?.(message);
  }

  #oldestWaiting(): JsonRpcId | undefined {
    for (const id of this.#waiting) {
      return id;
    }
    return undefined;
  }
}
