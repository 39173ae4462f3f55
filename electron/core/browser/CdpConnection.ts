import type { CDPSessionEvent } from 'puppeteer-core/internal/api/CDPSession.js';
import type { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import type { NodeWebSocketTransport } from 'puppeteer-core/internal/node/NodeWebSocketTransport.js';
import type { WebSocket } from 'ws';
import { TabmuxError } from '../../../shared/errors.js';

interface CdpModules {
  CDPSessionEvent: typeof CDPSessionEvent;
  Connection: typeof Connection;
  NodeWebSocketTransport: typeof NodeWebSocketTransport;
  WebSocket: typeof WebSocket;
}

let loading: Promise<CdpModules> | undefined;
let loaded: CdpModules | undefined;

/**
 * Starts loading puppeteer-core's connection and ws, the largest modules the daemon needs, if that has not begun.
 * A launch calls this right after it spawns Chrome, so the loading overlaps Chrome's own start instead of delaying it.
 */
export function loadCdpModules(): Promise<CdpModules> {
  loading ??= Promise.all([
    import('puppeteer-core/internal/api/CDPSession.js'),
    import('puppeteer-core/internal/cdp/Connection.js'),
    import('puppeteer-core/internal/node/NodeWebSocketTransport.js'),
    import('ws'),
  ]).then(([session, connection, transport, ws]) => {
    loaded = { CDPSessionEvent: session.CDPSessionEvent, Connection: connection.Connection, NodeWebSocketTransport: transport.NodeWebSocketTransport, WebSocket: ws.WebSocket };
    return loaded;
  });
  return loading;
}

/** What the daemon's parts need of its CDP connection (puppeteer's `Connection`); tests may pass a narrower fake. */
export type CdpConnection = Pick<Connection, 'send' | 'on' | 'session'>;

/** How long one CDP command of the daemon's own may take before it fails. */
const PROTOCOL_TIMEOUT_MS = 30_000;

export interface OpenCdpOptions {
  /** Sent with the WebSocket handshake (auth for a remote engine). */
  headers?: Readonly<Record<string, string>>;
  /** The URL as errors may show it (credentials hidden); the URL itself when it holds none. */
  shownUrl?: string;
  /**
   * How long the handshake may take. An engine that queues connections holds the handshake open; past this the
   * attempt fails as `browser_busy` instead of hanging.
   */
  handshakeTimeoutMs?: number;
}

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 30_000;

/** The largest message accepted from the browser (puppeteer's own default). */
const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

/**
 * Opens the daemon's own CDP connection to a browser's WebSocket endpoint, outside upstream's tool mutex. It is
 * puppeteer-core's `Connection`, so sessions, events and errors behave as upstream's: the 24.x line, the last whose
 * engines accept Node 20 (upstream bundles its own 25.x, whose connection works alike). Its own debug output goes to
 * puppeteer's `debug` channels (DEBUG=puppeteer:*), not to the daemon's log.
 * An engine that refuses for load (HTTP 429 or 503) or keeps the handshake waiting fails as `browser_busy`.
 */
export async function openCdpConnection(url: string, options: OpenCdpOptions = {}): Promise<Connection> {
  const shown = options.shownUrl ?? url;
  const timeoutMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const { Connection, NodeWebSocketTransport, WebSocket } = await loadCdpModules();
  const transport = await new Promise<NodeWebSocketTransport>((resolve, reject) => {
    const socket = new WebSocket(url, [], {
      followRedirects: true,
      perMessageDeflate: false,
      maxPayload: MAX_PAYLOAD_BYTES,
      handshakeTimeout: timeoutMs,
      headers: { ...options.headers },
      ...(isLoopback(url) ? { generateMask: unmasked } : {}),
    });
    socket.once('open', () => resolve(new NodeWebSocketTransport(socket)));
    socket.once('error', (error) => {
      socket.terminate();
      reject(connectError(error, shown, timeoutMs));
    });
  });
  return new Connection(url, transport, 0, PROTOCOL_TIMEOUT_MS, false);
}

/**
 * A client masks its frames so that one who controls their bytes cannot poison the cache of a proxy on the way; a
 * connection to this machine's loopback passes no proxy, so its frames go with an all-zero mask, which `ws` does not
 * apply: every CDP message is sent without a copy and a pass over its bytes. Any other address keeps a random mask.
 */
export function isLoopback(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function unmasked(mask: Buffer): void {
  mask.fill(0);
}

/** What a failed handshake means for the user; `ws`'s messages name the HTTP status, never the URL or headers. */
function connectError(error: Error, shown: string, timeoutMs: number): TabmuxError {
  const status = /Unexpected server response: (\d+)/.exec(error.message)?.[1];
  if (status === '429' || status === '503') {
    return new TabmuxError('browser_busy', `the browser at ${shown} is busy (HTTP ${status}: it is at its limit of sessions); retry in a moment`, { cause: error });
  }
  if (/handshake has timed out/i.test(error.message)) {
    return new TabmuxError(
      'browser_busy',
      `the browser at ${shown} did not accept the connection within ${Math.round(timeoutMs / 1000)} s (an engine queueing sessions does this when it is full); retry in a moment`,
      { cause: error },
    );
  }
  return new TabmuxError('browser_unavailable', `could not open a DevTools connection to ${shown}: ${error.message}`, { cause: error });
}

/** Calls `listener` once when the connection closes (the browser went away, or `dispose()`). */
export function onDisconnected(connection: Connection, listener: () => void): void {
  // A connection exists only once openCdpConnection has loaded the modules.
  if (!loaded) {
    throw new TabmuxError('internal', 'a CDP connection exists before its modules were loaded');
  }
  connection.once(loaded.CDPSessionEvent.Disconnected, listener);
}
