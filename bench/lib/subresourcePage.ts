import type { Resource } from './PageServer.js';

/** A 1×1 transparent PNG. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/**
 * A page at `path` that loads `images` images and `scripts` scripts from the same server, plus those files: each load
 * is the document and one request per file, the requests that browser-level interception would see.
 */
export function subresourcePage(path: string, images = 10, scripts = 10): Record<string, string | Resource> {
  const files: Record<string, string | Resource> = {};
  const tags: string[] = [];
  for (let index = 0; index < images; index++) {
    const file = `${path}.img-${index}.png`;
    files[file] = { type: 'image/png', body: PIXEL };
    tags.push(`<img src="${file}" width="16" height="16" alt="image ${index}">`);
  }
  for (let index = 0; index < scripts; index++) {
    const file = `${path}.script-${index}.js`;
    files[file] = { type: 'text/javascript', body: `window.loadedScripts = (window.loadedScripts || 0) + 1;\n` };
    tags.push(`<script src="${file}"></script>`);
  }
  files[path] = `<!doctype html><html><head><meta charset="utf-8"><title>Page with ${images + scripts} files</title></head><body><p>Loaded.</p>${tags.join('')}</body></html>`;
  return files;
}
