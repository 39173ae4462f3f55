import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolInfo, ToolResult } from '../../../shared/protocol.js';
import { TabmuxError } from '../../../shared/errors.js';
import { isRecord } from '../../../shared/isRecord.js';
import { asToolResult } from '../../../shared/toolResult.js';
import type { BrowserEndpoint } from '../browser/ProfileBrowser.js';
import type { Logger } from '../platform/Logger.js';
import { UpstreamRpc, UpstreamRpcError } from './UpstreamRpc.js';
import { RESPONSE_TOO_LARGE_CODE, UpstreamStdioTransport } from './UpstreamStdioTransport.js';
import { upstreamLauncherPath, workerRuntimePath } from '../platform/version.js';

/** The part of an upstream the router needs; tests may supply a small fake. */
export interface Upstream {
  readonly pid: number | null;
  listTools(): Promise<ToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Resolves when the upstream process is gone (crash or close). */
  readonly closed: Promise<void>;
  /**
   * Stops the process; calls still running fail with `reason`. `immediately` kills it at once, for a process stuck in
   * a call: a polite exit would wait for that call.
   */
  close(reason?: string, options?: { immediately?: boolean }): Promise<void>;
}

export interface UpstreamOptions {
  endpoint: BrowserEndpoint;
  logger: Logger;
  /** Folder that file-writing tools are confined to. */
  workspace?: string;
  /**
   * The worker's own temp folder (TMPDIR, TMP, TEMP): upstream always lets file tools use the OS temp folder, so
   * this keeps them out of the system's and out of other workers'. Emptied and made 0700 at every start.
   */
  tempDir?: string;
  extraArgs?: readonly string[];
  /** The longest answer line read from upstream; `UPSTREAM_MAX_MESSAGE_BYTES` unless a test lowers it. */
  maxMessageBytes?: number;
}

const require = createRequire(import.meta.url);

export function upstreamEntryPoint(): string {
  const pkg = require.resolve('chrome-devtools-mcp/package.json');
  return join(dirname(pkg), 'build', 'src', 'bin', 'chrome-devtools-mcp.js');
}

/** How long upstream may take to list its tools. Tool calls have no limit here: the router times them out itself. */
const LIST_TOOLS_TIMEOUT_MS = 60_000;

/**
 * The largest reply line read from upstream. The MCP SDK's 10 MB default is below what a big page yields (a network
 * body, a script result). A reply over it fails only the call that asked for it.
 */
export const UPSTREAM_MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

/**
 * One `chrome-devtools-mcp` child connected to a browser (`--browserUrl` or `--wsEndpoint`), spoken to over MCP on
 * its stdio.
 * Telemetry, update checks and config discovery are off so that no detached helper processes are spawned and no
 * user config leaks in.
 */
export class UpstreamClient implements Upstream {
  readonly closed: Promise<void>;
  #client: UpstreamRpc;
  #transport: UpstreamStdioTransport;
  #maxMessageBytes: number;
  readonly #logger: Logger;
  #closeReason: string | undefined;
  #exited = false;

  private constructor(client: UpstreamRpc, transport: UpstreamStdioTransport, maxMessageBytes: number, logger: Logger) {
    this.#client = client;
    this.#transport = transport;
    this.#maxMessageBytes = maxMessageBytes;
    this.#logger = logger;
    // Out-of-band trouble (a stdout line that is no message, an answer to a request nobody waits for) costs no call.
    client.onerror = (error) => logger.debug(`upstream: ${error.message}`);
    this.closed = new Promise<void>((resolve) => {
      client.onclose = () => {
        this.#exited = true;
        resolve();
      };
    });
  }

  get pid(): number | null {
    return this.#transport.pid;
  }

  static args(options: UpstreamOptions): string[] {
    const { endpoint } = options;
    const args = [upstreamEntryPoint()];
    if (endpoint.kind === 'browserUrl') {
      args.push('--browserUrl', endpoint.url);
    } else {
      args.push('--wsEndpoint', endpoint.url);
    }
    args.push(
      '--no-usage-statistics',
      '--no-performance-crux',
      '--experimentalInteropTools',
      // Page lists, snapshots and tab ids as data: the router never reads them out of text a page can write.
      '--experimentalStructuredContent',
    );
    if (options.workspace) {
      args.push('--workspace', options.workspace);
    }
    args.push(...(options.extraArgs ?? []));
    return args;
  }

  /**
   * Starts a worker and waits for its MCP handshake. A `prepared` process (started before the browser was known) is
   * given its command line and used when it was made for the same folder and limits and still runs; otherwise it is
   * closed and a new process is spawned, so a prepared one never changes what a worker is.
   */
  static async start(options: UpstreamOptions, prepared?: PreparedUpstream): Promise<UpstreamClient> {
    const maxMessageBytes = options.maxMessageBytes ?? UPSTREAM_MAX_MESSAGE_BYTES;
    const args = UpstreamClient.args(options);
    let transport = await prepared?.launch(options, args);
    if (transport === undefined) {
      await prepared?.close();
      transport = new UpstreamStdioTransport({ command: process.execPath, args: [...runtimeFlags(), ...args], env: await workerEnvironment(options), maxMessageBytes });
    }
    const logger = options.logger;
    transport.stderr.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) {
          logger.debug(`upstream: ${line}`);
        }
      }
    });
    const client = new UpstreamRpc(transport);
    const upstream = new UpstreamClient(client, transport, maxMessageBytes, logger);
    try {
      // A prepared process is running already; connect starts any other.
      await client.connect({ name: 'tabmux', version: '1' });
    } catch (error) {
      await transport.close().catch(() => undefined);
      throw new TabmuxError('upstream_unavailable', `chrome-devtools-mcp failed to start: ${errorMessage(error)}`, { cause: error });
    }
    logger.info(`upstream started, pid ${String(transport.pid)}`);
    return upstream;
  }

  async listTools(): Promise<ToolInfo[]> {
    const result = await this.#client.request('tools/list', undefined, LIST_TOOLS_TIMEOUT_MS);
    const tools = isRecord(result) ? result['tools'] : undefined;
    if (!Array.isArray(tools)) {
      throw new TabmuxError('upstream_failed', 'chrome-devtools-mcp answered tools/list without a list of tools');
    }
    return tools.map(toolInfo);
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const startedAt = Date.now();
    this.#logger.debug(`${name} started`);
    try {
      const result = await this.#client.request('tools/call', { name, arguments: args });
      this.#logger.debug(`${name} answered in ${Date.now() - startedAt} ms`);
      return asToolResult(result);
    } catch (error) {
      if (error instanceof UpstreamRpcError && error.code === RESPONSE_TOO_LARGE_CODE) {
        throw new TabmuxError(
          'response_too_large',
          `the answer was larger than ${mebibytes(this.#maxMessageBytes)} MiB, more than tabmux reads from chrome-devtools-mcp; ask for less (return a part of it, or save it to a file)`,
          { cause: error },
        );
      }
      if (this.#closeReason !== undefined) {
        throw new TabmuxError('upstream_unavailable', this.#closeReason, { cause: error });
      }
      if (this.#exited) {
        throw new TabmuxError(
          'upstream_unavailable',
          'chrome-devtools-mcp exited while the call ran; it is restarted on the next call. Check the page state, then retry',
          { cause: error },
        );
      }
      throw new TabmuxError('upstream_failed', `chrome-devtools-mcp failed the call: ${errorMessage(error)}`, { cause: error });
    }
  }

  async close(reason = 'the upstream worker was stopped while the call ran', options: { immediately?: boolean } = {}): Promise<void> {
    this.#closeReason ??= reason;
    if (options.immediately === true) {
      this.#transport.kill();
    }
    await this.#client.close().catch(() => undefined);
  }
}

/**
 * Node flags that give a worker what upstream needs of the runtime (Promise.withResolvers, the Set methods, iterator
 * helpers…) where this Node lacks it: Node 20. Node 22 and later have them all, and get no flag.
 */
function runtimeFlags(): string[] {
  if ('withResolvers' in Promise && 'intersection' in Set.prototype && 'fromAsync' in Array) {
    return [];
  }
  return ['--import', pathToFileURL(workerRuntimePath()).href];
}

/** One tool as upstream lists it, with an object input schema; anything else means upstream is not what we pinned. */
function toolInfo(tool: unknown): ToolInfo {
  const input = isRecord(tool) ? tool['inputSchema'] : undefined;
  if (!isRecord(tool) || typeof tool['name'] !== 'string' || !isRecord(input) || input['type'] !== 'object') {
    throw new TabmuxError('upstream_failed', 'chrome-devtools-mcp listed a tool without a name or an object input schema');
  }
  const { properties, required, ...rest } = input;
  const inputSchema: ToolInfo['inputSchema'] = { ...rest, type: 'object' };
  if (isRecord(properties)) {
    inputSchema.properties = { ...properties };
  }
  if (Array.isArray(required)) {
    inputSchema.required = required.filter((name) => typeof name === 'string');
  }
  const description = tool['description'];
  const annotations = tool['annotations'];
  return {
    name: tool['name'],
    description: typeof description === 'string' ? description : undefined,
    inputSchema,
    annotations: isRecord(annotations) ? { ...annotations } : undefined,
  };
}

function mebibytes(bytes: number): string {
  return String(Math.round((bytes / (1024 * 1024)) * 100) / 100);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The environment of a worker: the variables deemed safe to inherit, less those the endpoint keeps from workers, with
 * upstream's update checks, config discovery and usage statistics off, and a fresh temp folder of its own.
 */
async function workerEnvironment(options: { endpoint?: BrowserEndpoint; tempDir?: string | undefined }): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  const hidden = new Set(options.endpoint?.hiddenEnv);
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !hidden.has(key)) {
      env[key] = value;
    }
  }
  env['CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS'] = '1';
  env['CHROME_DEVTOOLS_MCP_NO_CONFIG_DISCOVERY'] = '1';
  env['CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS'] = '1';
  // A packaged Electron app spawns this with its own binary acting as Node.
  env['ELECTRON_RUN_AS_NODE'] = '1';
  if (options.tempDir !== undefined) {
    // A fresh folder each start: what a previous run of this worker left there belongs to no session now.
    await fs.rm(options.tempDir, { recursive: true, force: true });
    await fs.mkdir(options.tempDir, { recursive: true, mode: 0o700 });
    env['TMPDIR'] = options.tempDir;
    env['TMP'] = options.tempDir;
    env['TEMP'] = options.tempDir;
  }
  return env;
}

export interface PrepareOptions {
  /** The temp folder the worker will be started with (see `UpstreamOptions.tempDir`). */
  tempDir?: string;
  maxMessageBytes?: number;
}

/**
 * A worker process started before the browser it will drive is known: it loads upstream's modules meanwhile (see
 * electron/bin/upstreamLauncher.ts) and runs upstream once `UpstreamClient.start` gives it its command line. Only
 * for an endpoint that keeps no variables from workers, since its environment is fixed when it starts.
 */
export class PreparedUpstream {
  readonly #options: PrepareOptions;
  readonly #transport: Promise<UpstreamStdioTransport | undefined>;
  #taken = false;

  private constructor(options: PrepareOptions, transport: Promise<UpstreamStdioTransport | undefined>) {
    this.#options = options;
    this.#transport = transport;
  }

  static start(options: PrepareOptions, logger: Logger): PreparedUpstream {
    const transport = (async () => {
      const started = new UpstreamStdioTransport({
        command: process.execPath,
        args: [upstreamLauncherPath()],
        env: await workerEnvironment({ tempDir: options.tempDir }),
        maxMessageBytes: options.maxMessageBytes ?? UPSTREAM_MAX_MESSAGE_BYTES,
        commandPipe: true,
      });
      await started.start();
      return started;
    })().catch((error: unknown) => {
      logger.debug(`could not start a worker ahead of the browser (${errorMessage(error)}); it starts when needed`);
      return undefined;
    });
    return new PreparedUpstream(options, transport);
  }

  /** The running process, given its command line; undefined when it does not fit these options or is gone. */
  async launch(options: UpstreamOptions, args: readonly string[]): Promise<UpstreamStdioTransport | undefined> {
    const transport = await this.#transport;
    const fits =
      !this.#taken &&
      (options.endpoint.hiddenEnv ?? []).length === 0 &&
      options.tempDir === this.#options.tempDir &&
      (options.maxMessageBytes ?? UPSTREAM_MAX_MESSAGE_BYTES) === (this.#options.maxMessageBytes ?? UPSTREAM_MAX_MESSAGE_BYTES);
    if (!transport || !fits || !transport.running) {
      return undefined;
    }
    this.#taken = true;
    transport.sendCommand(args);
    return transport;
  }

  /** The process id, once it started; null when it could not start or has exited. */
  async pid(): Promise<number | null> {
    return (await this.#transport)?.pid ?? null;
  }

  /** Stops the process unless a worker took it. */
  async close(): Promise<void> {
    const transport = await this.#transport;
    if (transport && !this.#taken) {
      this.#taken = true;
      await transport.close();
    }
  }
}
