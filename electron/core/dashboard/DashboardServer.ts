import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { contentSecurityPolicy } from '../../../shared/contentSecurityPolicy.js';
import { TabmuxError } from '../../../shared/errors.js';
import { Logger } from '../platform/Logger.js';
import type { TabmuxPaths } from '../platform/paths.js';
import type { SupervisorService } from '../supervisor/SupervisorService.js';
import { DashboardRegistry } from './DashboardRegistry.js';
import { allowedHosts, checkFileRequest, checkSocketRequest } from './requestGuard.js';
import { serveRpcSocket } from './serveRpcSocket.js';
import { readStaticFile } from './staticFiles.js';

/** One request the server received, and how it answered (101 for an opened WebSocket). */
export interface SeenRequest {
  kind: 'file' | 'socket';
  path: string;
  status: number;
}

export interface DashboardServerOptions {
  service: SupervisorService;
  /** Where the dashboard records its address, so the daemons keep their browsers' tabs away from it. */
  paths: TabmuxPaths;
  /** The built renderer (dist/renderer). */
  rendererDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** Fixed token for tests; normally a fresh random one per start. */
  token?: string;
  logger?: Logger;
  /** Every request, as answered (logged at debug level; tests watch it). */
  onRequest?: (seen: SeenRequest) => void;
}

const WS_PATH = '/ws';
const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * The web dashboard: the renderer's files and its JSON-RPC WebSocket on 127.0.0.1 only. The link carries the token
 * in its fragment, which the browser never sends: the page keeps it in its own tab's storage and presents it when it
 * opens the WebSocket, the only way to the supervisor (see requestGuard.ts). While it serves, its address is recorded
 * for the daemons, which keep every tab of their browsers away from it.
 */
export class DashboardServer {
  readonly token: string;
  readonly #options: DashboardServerOptions;
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #logger: Logger;
  #port = 0;
  #unregister: (() => Promise<void>) | undefined;

  private constructor(options: DashboardServerOptions) {
    this.#options = options;
    this.token = options.token ?? randomBytes(32).toString('base64url');
    this.#logger = options.logger ?? Logger.silent();
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
    this.#http = createServer((request, response) => void this.#serve(request, response));
    this.#http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(request, socket, head));
  }

  static async start(options: DashboardServerOptions): Promise<DashboardServer> {
    const server = new DashboardServer(options);
    await new Promise<void>((resolve, reject) => {
      server.#http.once('error', (error: NodeJS.ErrnoException) => {
        reject(
          error.code === 'EADDRINUSE'
            ? new TabmuxError('port_in_use', `port ${options.port ?? 0} is in use; pick another with --port N, or 0 for any free port`, { cause: error })
            : TabmuxError.from(error),
        );
      });
      server.#http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    const address = server.#http.address();
    server.#port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      server.#unregister = await new DashboardRegistry(options.paths).register(server.#port);
    } catch (error) {
      await server.close();
      const cause = TabmuxError.from(error);
      // Unrecorded, no daemon would keep its tabs away from the dashboard: it is not served at all.
      throw new TabmuxError(cause.code, `could not record the dashboard's address for the daemons: ${cause.message}`, { cause: error });
    }
    // Before anyone has the link: every running daemon keeps its tabs away from this port first.
    await options.service.dashboardsChanged();
    return server;
  }

  get port(): number {
    return this.#port;
  }

  /** The link to open: the token rides in the fragment, which only the page reads (never sent, never logged). */
  get url(): string {
    return `http://127.0.0.1:${this.#port}/#token=${this.token}`;
  }

  async close(): Promise<void> {
    for (const client of this.#wss.clients) {
      client.close(1001, 'The dashboard server is shutting down.');
    }
    this.#wss.close();
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
    const unregister = this.#unregister;
    this.#unregister = undefined;
    if (unregister) {
      await unregister().catch((error: unknown) => this.#logger.warn(`could not remove the dashboard's record: ${TabmuxError.from(error).message}`));
      await this.#options.service.dashboardsChanged();
    }
  }

  async #serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const verdict = checkFileRequest(request, this.#port);
    if (!verdict.ok) {
      this.#seen({ kind: 'file', path, status: verdict.status }, verdict.reason);
      response.writeHead(verdict.status, { 'content-type': 'text/plain; charset=utf-8', ...this.#securityHeaders() }).end(`${verdict.reason}\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      this.#seen({ kind: 'file', path, status: 405 });
      response.writeHead(405, { allow: 'GET, HEAD', ...this.#securityHeaders() }).end();
      return;
    }
    const file = await readStaticFile(this.#options.rendererDir, path);
    if (!file) {
      this.#seen({ kind: 'file', path, status: 404 });
      const missingBuild = path === '/' || path === '/index.html';
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...this.#securityHeaders() })
        .end(missingBuild ? `the dashboard UI is not built; run: npm run build:renderer (looked in ${this.#options.rendererDir})\n` : 'not found\n');
      return;
    }
    const headers: Record<string, string> = {
      'content-type': file.contentType,
      'cache-control': 'no-store',
      ...this.#securityHeaders(),
    };
    this.#seen({ kind: 'file', path, status: 200 });
    response.writeHead(200, headers);
    response.end(request.method === 'HEAD' ? undefined : file.body);
  }

  #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const verdict = checkSocketRequest(request, { port: this.#port, token: this.token });
    if (!verdict.ok || path !== WS_PATH) {
      const status = verdict.ok ? '404 Not Found' : '403 Forbidden';
      this.#seen({ kind: 'socket', path, status: verdict.ok ? 404 : 403 }, verdict.ok ? undefined : verdict.reason);
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    this.#seen({ kind: 'socket', path, status: 101 });
    this.#wss.handleUpgrade(request, socket, head, (ws) => serveRpcSocket(ws, this.#options.service, this.#logger));
  }

  #seen(seen: SeenRequest, reason?: string): void {
    this.#logger.debug(`${seen.kind} ${seen.path}: ${seen.status}${reason === undefined ? '' : ` (${reason})`}`);
    this.#options.onRequest?.(seen);
  }

  #securityHeaders(): Record<string, string> {
    const sockets = allowedHosts(this.#port)
      .map((host) => `ws://${host}`)
      .join(' ');
    return {
      'content-security-policy': contentSecurityPolicy(`'self' ${sockets}`),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    };
  }
}
