import { CDPSessionEvent } from 'puppeteer-core/internal/api/CDPSession.js';
import { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { NodeWebSocketTransport } from 'puppeteer-core/internal/node/NodeWebSocketTransport.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../Logger.js';

/** What the daemon's parts need of its CDP connection (puppeteer's `Connection`); tests may pass a narrower fake. */
export type CdpConnection = Pick<Connection, 'send' | 'on' | 'session'>;

/** How long one CDP command of the daemon's own may take before it fails. */
const PROTOCOL_TIMEOUT_MS = 30_000;

/**
 * Opens the daemon's own CDP connection to a browser's WebSocket endpoint, outside upstream's tool mutex. It is
 * puppeteer-core's `Connection` (the version upstream bundles), so sessions, events and errors behave as upstream's.
 */
export async function openCdpConnection(url: string, logger: Logger, headers?: Record<string, string>): Promise<Connection> {
  const log = (prefix: string) => (prefix.includes('error') ? (...args: unknown[]) => logger.debug(`cdp: ${args.map(String).join(' ')}`) : undefined);
  const transport = await NodeWebSocketTransport.create(url, headers, log).catch((error: unknown) => {
    // `ws` rejects with an ErrorEvent, not an Error: keep its message.
    const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
    throw new TabmuxError('browser_unavailable', `could not open a DevTools connection to ${url}: ${message}`, { cause: error });
  });
  return new Connection(url, transport, 0, PROTOCOL_TIMEOUT_MS, false, undefined, log);
}

/** Calls `listener` once when the connection closes (the browser went away, or `dispose()`). */
export function onDisconnected(connection: Connection, listener: () => void): void {
  connection.once(CDPSessionEvent.Disconnected, listener);
}
