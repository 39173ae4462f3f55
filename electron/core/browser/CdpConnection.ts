import { CDPSessionEvent } from 'puppeteer-core/internal/api/CDPSession.js';
import { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { NodeWebSocketTransport } from 'puppeteer-core/internal/node/NodeWebSocketTransport.js';
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
  const transport = await NodeWebSocketTransport.create(url, headers, log);
  return new Connection(url, transport, 0, PROTOCOL_TIMEOUT_MS, false, undefined, log);
}

/** Calls `listener` once when the connection closes (the browser went away, or `dispose()`). */
export function onDisconnected(connection: Connection, listener: () => void): void {
  connection.once(CDPSessionEvent.Disconnected, listener);
}
