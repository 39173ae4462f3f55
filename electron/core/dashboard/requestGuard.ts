import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to the dashboard: only a page served by this server, reached by its loopback address, holding the
 * token printed at start. The Host check defeats DNS rebinding (a foreign site whose name resolves to 127.0.0.1),
 * the Origin check stops other local pages from using the WebSocket, and the token stops other local users and
 * any page that guesses the port.
 */
export interface GuardContext {
  port: number;
  token: string;
}

export type GuardResult = { ok: true; viaQuery: boolean } | { ok: false; status: 403; reason: string };

export function cookieName(port: number): string {
  // Cookies are shared by every port of a host; naming it by port keeps two dashboards from overwriting each other.
  return `tabmux_token_${port}`;
}

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function checkRequest(request: IncomingMessage, context: GuardContext): GuardResult {
  const host = request.headers.host ?? '';
  if (!allowedHosts(context.port).includes(host.toLowerCase())) {
    return { ok: false, status: 403, reason: `refused: Host ${JSON.stringify(host)} is not this dashboard; open the link tabmux dashboard printed` };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !allowedHosts(context.port).some((allowed) => origin.toLowerCase() === `http://${allowed}`)) {
    return { ok: false, status: 403, reason: 'refused: requests from other origins are not allowed' };
  }
  const fromQuery = new URL(request.url ?? '/', 'http://localhost').searchParams.get('token');
  const fromCookie = readCookie(request.headers.cookie, cookieName(context.port));
  if (fromQuery !== null && sameToken(fromQuery, context.token)) {
    return { ok: true, viaQuery: true };
  }
  if (fromCookie !== undefined && sameToken(fromCookie, context.token)) {
    return { ok: true, viaQuery: false };
  }
  return { ok: false, status: 403, reason: 'refused: missing or wrong access token; open the full link tabmux dashboard printed (the token changes on every start)' };
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) {
      return rest.join('=');
    }
  }
  return undefined;
}
