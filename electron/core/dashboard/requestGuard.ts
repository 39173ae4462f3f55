import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to the dashboard. The Host check defeats DNS rebinding (a foreign site whose name resolves to
 * 127.0.0.1) and the Origin check stops other local pages from using the WebSocket. The page's files are the
 * renderer's own code, public and holding no data, so they need nothing more. The WebSocket, which carries every
 * session, the activity log, pause, pictures and takeover input, needs the token printed at start, sent explicitly
 * by the tab that holds it (see renderer/host/accessToken.ts).
 *
 * The token never becomes state the browser keeps for every tab, such as a cookie: a browser that agents also drive
 * shares its cookies with their tabs, so a cookie would let any of them in. A cookie a browser still sends from an
 * older version is ignored.
 */
export interface GuardContext {
  port: number;
  token: string;
}

export type GuardResult = { ok: true } | { ok: false; status: 403; reason: string };

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** A request for one of the page's files. */
export function checkFileRequest(request: IncomingMessage, port: number): GuardResult {
  const host = request.headers.host ?? '';
  if (!allowedHosts(port).includes(host.toLowerCase())) {
    return { ok: false, status: 403, reason: `refused: Host ${JSON.stringify(host)} is not this dashboard; open the link tabmux dashboard printed` };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !allowedHosts(port).some((allowed) => origin.toLowerCase() === `http://${allowed}`)) {
    return { ok: false, status: 403, reason: 'refused: requests from other origins are not allowed' };
  }
  return { ok: true };
}

/** The WebSocket's handshake: the file checks, and the token in the query (`/ws?token=...`). */
export function checkSocketRequest(request: IncomingMessage, context: GuardContext): GuardResult {
  const checked = checkFileRequest(request, context.port);
  if (!checked.ok) {
    return checked;
  }
  const given = new URL(request.url ?? '/', 'http://localhost').searchParams.get('token');
  if (given !== null && sameToken(given, context.token)) {
    return { ok: true };
  }
  return {
    ok: false,
    status: 403,
    reason: 'refused: missing or wrong access token; open the full link tabmux dashboard printed in this tab (the token is kept per tab and changes on every start)',
  };
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
