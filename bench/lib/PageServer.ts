import { createServer, type Server } from 'node:http';
import type { Teardown } from './Teardown.js';

/** 500 list items, each with a link, a button and a text field: 2,000 interactive elements, as in upstream's own timing. */
export function bigPageHtml(items = 500): string {
  const rows: string[] = [];
  for (let index = 0; index < items; index++) {
    rows.push(`<li><a href="#item-${index}">Item link ${index}</a> <button type="button">Action ${index}</button> <input aria-label="Field ${index}" value=""></li>`);
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>Big page</title></head><body><ul>${rows.join('')}</ul></body></html>`;
}

/** A file the page server answers with other than an HTML page: a script, an image. */
export interface Resource {
  type: string;
  body: string | Buffer;
}

/**
 * Serves fixed pages and files on 127.0.0.1 over plain HTTP: a real document load (unlike a data: URL, whose whole
 * body would also show up in every page title line). Nothing may be cached, so every load fetches every file again.
 */
export class PageServer {
  readonly origin: string;

  private constructor(origin: string) {
    this.origin = origin;
  }

  static async start(teardown: Teardown, files: Readonly<Record<string, string | Resource>>): Promise<PageServer> {
    const server: Server = createServer((request, response) => {
      // Pages are addressed with a query now and then, so each navigation is a new document; the path picks the file.
      const file = files[new URL(request.url ?? '/', 'http://localhost').pathname];
      if (file === undefined) {
        response.writeHead(404).end();
        return;
      }
      const { type, body } = typeof file === 'string' ? { type: 'text/html; charset=utf-8', body: file } : file;
      response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    teardown.add('stop page server', () => {
      // Chrome keeps connections alive; close() alone would wait for them.
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const address = server.address();
    if (address === null || typeof address === 'string') {
      throw new Error('page server has no TCP address');
    }
    return new PageServer(`http://127.0.0.1:${address.port}`);
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }
}
