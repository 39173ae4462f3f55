import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// base './' keeps asset URLs relative, so the same build serves from any dashboard path and loads from file:// in
// the tray window.
export default defineConfig({
  root,
  base: './',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // The polyfill would be an inline script, which the window's CSP (script-src 'self') refuses.
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
