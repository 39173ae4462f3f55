/**
 * Vite build of the renderer. This file shares the renderer's browser tsconfig and lint rules, so it avoids
 * node:* imports and even vite's own types (they pull Node's globals into the browser program); `vite build`
 * validates the shape instead.
 */

/** A file: URL to a platform path, without node:url (`/C:/x` becomes `C:/x` on Windows). */
function toPath(url: URL): string {
  return decodeURIComponent(url.pathname).replace(/^\/(?=[A-Za-z]:)/, '');
}

export default {
  root: toPath(new URL('.', import.meta.url)),
  // Relative asset URLs: the same build serves from any dashboard path and loads from file:// in the tray window.
  base: './',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: toPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // The polyfill would be an inline script, which the window's CSP (script-src 'self') refuses.
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
};
