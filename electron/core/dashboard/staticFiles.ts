import { promises as fs } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

export interface StaticFile {
  body: Buffer;
  contentType: string;
}

/**
 * Reads a file of the built renderer for a URL path. Paths that leave the folder (`..`, encoded or not) and unknown
 * file types are treated as missing, so the server never hands out anything but the renderer's own assets.
 */
export async function readStaticFile(root: string, urlPath: string): Promise<StaticFile | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  if (relative.includes('\0')) {
    return undefined;
  }
  const full = normalize(join(root, relative));
  if (!full.startsWith(root.endsWith(sep) ? root : root + sep)) {
    return undefined;
  }
  const contentType = CONTENT_TYPES[extname(full).toLowerCase()];
  if (!contentType) {
    return undefined;
  }
  try {
    const stat = await fs.stat(full);
    if (!stat.isFile()) {
      return undefined;
    }
    return { body: await fs.readFile(full), contentType };
  } catch {
    return undefined;
  }
}
