/**
 * The CSP of every page tabmux serves to its own UI (the tray window's app:// scheme and the web dashboard): only
 * the app's own scripts, styles and images, no frames, no forms, and network access only where `connectSrc` says.
 */
export function contentSecurityPolicy(connectSrc: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connectSrc}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
