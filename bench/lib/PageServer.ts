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

/**
 * Serves fixed pages on 127.0.0.1 over plain HTTP: a real document load (unlike a data: URL, whose whole body
 * would also show up in every page title line the router parses).
 */
export class PageServer {
  readonly origin: string;

  private constructor(origin: string) {
    this.origin = origin;
  }

  static async start(teardown: Teardown, pages: Readonly<Record<string, string>>): Promise<PageServer> {
    const server: Server = createServer((request, response) => {
      const body = pages[request.url ?? ''];
      if (body === undefined) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
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
