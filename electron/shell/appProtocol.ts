import { protocol } from 'electron';
import { contentSecurityPolicy } from '../../shared/contentSecurityPolicy.js';
import { readStaticFile } from '../core/dashboard/staticFiles.js';

/** The window loads the renderer from this scheme rather than file://, so every response can carry a CSP header. */
export const APP_SCHEME = 'tabmux';
export const APP_ORIGIN = `${APP_SCHEME}://app`;

// The window talks to the main process through the preload only, so it may open no connection at all.
const CSP = contentSecurityPolicy("'none'");

/** Must run before the app is ready: a standard, secure scheme gets a real origin and `'self'` in the CSP. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true } }]);
}

/** Serves the built renderer and nothing else; any other host or path outside the folder is a 404. */
export function serveApp(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    const file = url.host === 'app' ? await readStaticFile(rendererDir, url.pathname) : undefined;
    if (!file) {
      return new Response('not found', { status: 404, headers: { 'content-security-policy': CSP } });
    }
    return new Response(new Uint8Array(file.body), {
      headers: { 'content-type': file.contentType, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' },
    });
  });
}
