import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A response the server holds back until the test lets it go: the request's arrival is a deterministic signal. */
export interface HeldResponse {
  url: string;
  /** Resolves when the browser has asked for the URL. */
  arrived: Promise<void>;
  /** Answers with the page. */
  release: () => void;
  /** Drops the connection without an answer, so the navigation fails (net::ERR_EMPTY_RESPONSE). */
  fail: () => void;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The web server of a hostile site, on loopback: pages the test writes, redirects, responses held back on demand,
 * and a `/report/<key>` endpoint where a page posts what it managed to steal. Every URL is unique, so a tab can be
 * recognised in the browser's own target list by its URL alone.
 */
export class HostileServer {
  readonly #server: Server;
  readonly #routes = new Map<string, Handler>();
  readonly #reports = new Map<string, string[]>();
  #next = 0;
  readonly origin: string;

  private constructor(server: Server, origin: string) {
    this.#server = server;
    this.origin = origin;
    server.on('request', (request: IncomingMessage, response: ServerResponse) => this.#serve(request, response));
  }

  static async start(): Promise<HostileServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') {
      throw new Error('the hostile server has no TCP address');
    }
    return new HostileServer(server, `http://127.0.0.1:${address.port}`);
  }

  /** Serves an HTML document (`body` goes after a title) at a new URL and returns it. */
  page(body: string, title = 'Hostile', name = 'page'): string {
    const path = this.#path(name);
    const document = `<!doctype html><meta charset="utf-8"><title>${title}</title>${body}`;
    this.#routes.set(path, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(document);
    });
    return `${this.origin}${path}`;
  }

  /**
   * A URL that answers with a file to download (`Content-Disposition: attachment`) named `filename`. `sized`: with a
   * Content-Length (the browser knows the size up front); otherwise the body comes in chunks of unannounced length.
   * `until`: the first 4 KiB go at once, the rest once it resolves (the download stays in progress till then).
   */
  download(filename: string, body: Buffer | string, sized = true, until: Promise<void> = Promise.resolve()): string {
    const path = this.#path('download');
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    this.#routes.set(path, (_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename="${filename}"`,
        'cache-control': 'no-store',
        ...(sized ? { 'content-length': String(bytes.length) } : {}),
      });
      const chunk = 64 * 1024;
      // The browser sniffs the first kilobyte before it decides what a response is: it goes at once.
      const first = Math.min(bytes.length, 4096);
      response.write(bytes.subarray(0, first));
      void until.then(() => {
        for (let offset = first; offset < bytes.length; offset += chunk) {
          response.write(bytes.subarray(offset, offset + chunk));
        }
        response.end();
      });
    });
    return `${this.origin}${path}`;
  }

  /** A URL that answers with a 302 to `location`. */
  redirect(location: string): string {
    const path = this.#path('redirect');
    this.#routes.set(path, (_request, response) => {
      response.writeHead(302, { location, 'cache-control': 'no-store' });
      response.end();
    });
    return `${this.origin}${path}`;
  }

  /** A URL whose answer waits for `release()` or `fail()`. */
  hold(body = '', title = 'Held', name = 'held'): HeldResponse {
    const path = this.#path(name);
    let arrived: () => void = () => undefined;
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const waiting: ServerResponse[] = [];
    let outcome: 'release' | 'fail' | undefined;
    const settle = (response: ServerResponse): void => {
      if (outcome === 'release') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(`<!doctype html><title>${title}</title>${body}`);
      } else if (outcome === 'fail') {
        response.socket?.destroy();
      }
    };
    this.#routes.set(path, (_request, response) => {
      arrived();
      if (outcome === undefined) {
        waiting.push(response);
      } else {
        settle(response);
      }
    });
    const finish = (how: 'release' | 'fail'): void => {
      outcome = how;
      for (const response of waiting.splice(0)) {
        settle(response);
      }
    };
    return { url: `${this.origin}${path}`, arrived: arrival, release: () => finish('release'), fail: () => finish('fail') };
  }

  /** Where a page posts what it found (same origin as its pages, so a plain `fetch` POST works). */
  reportPath(key: string): string {
    return `/report/${encodeURIComponent(key)}`;
  }

  /** The bodies posted to `reportPath(key)`, in arrival order. */
  reports(key: string): readonly string[] {
    return this.#reports.get(key) ?? [];
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #path(name: string): string {
    this.#next += 1;
    return `/${name}-${this.#next}-${Math.random().toString(16).slice(2, 10)}`;
  }

  #serve(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/report/') && request.method === 'POST') {
      const key = decodeURIComponent(path.slice('/report/'.length));
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.#reports.set(key, [...this.reports(key), Buffer.concat(chunks).toString('utf8')]);
        response.writeHead(204);
        response.end();
      });
      return;
    }
    const handler = this.#routes.get(path);
    if (!handler) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
      return;
    }
    handler(request, response);
  }
}
