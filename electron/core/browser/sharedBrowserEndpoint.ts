import type { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import * as z from 'zod/mini';
import '../../../shared/zodMessages.js';
import { TabmuxError } from '../../../shared/errors.js';
import type { Logger } from '../platform/Logger.js';
import { openCdpConnection } from './CdpConnection.js';

export interface SharedEndpointOptions {
  /** The WebSocket the daemon's own connection was opened on (credentials included). */
  url: string;
  headers: Readonly<Record<string, string>>;
  /** The URL as messages show it. */
  shownUrl: string;
  logger: Logger;
}

const DISCOVERY_TIMEOUT_MS = 5000;

/** browserless's `/sessions`: each of its browsers and their pages, with the browser's id. */
const sessionsSchema = z.lazy(() => z.array(z.looseObject({ id: z.string(), browserId: z.optional(z.string()) })));

const targetsSchema = z.lazy(() => z.object({ targetInfos: z.array(z.looseObject({ targetId: z.string(), type: z.string() })) }));

/**
 * Where the workers must connect to land in the very browser the daemon's connection is in. A Chrome endpoint
 * (`/devtools/browser/<id>`) or a session-bound one (Selenium's `se/cdp`) reaches the same browser every time. An
 * engine that starts a new browser per connection (browserless's `/chromium`, hosted services) does not, so logins
 * would not be shared: for browserless the browser's own `/devtools/browser/<browserId>` is found through its
 * `/sessions` list. Whatever the candidate, it counts only when a second connection to it sees the daemon's own
 * targets: the browser says whether it is the same one, not a URL pattern.
 */
export async function sharedBrowserEndpoint(connection: Connection, options: SharedEndpointOptions): Promise<string> {
  const { markers, created } = await markerTargets(connection);
  try {
    const candidates: string[] = [];
    if (!new URL(options.url).pathname.startsWith('/devtools/browser/')) {
      const browserless = await browserlessEndpoint(options, markers);
      if (browserless !== undefined) {
        candidates.push(browserless);
      }
    }
    candidates.push(options.url);
    for (const candidate of candidates) {
      if (await reachesSameBrowser(candidate, options, markers)) {
        return candidate;
      }
    }
  } finally {
    if (created !== undefined) {
      await connection.send('Target.closeTarget', { targetId: created }).catch(() => undefined);
    }
  }
  throw new TabmuxError(
    'browser_unavailable',
    `the engine at ${options.shownUrl} starts a new browser for every connection and names no endpoint that reaches the same one again, so tabmux's connections would not share logins; point the profile at an endpoint of one browser (such as /devtools/browser/<id>)`,
  );
}

/** Ids of targets the daemon's connection sees; a blank tab is opened (and closed after) if there is none. */
async function markerTargets(connection: Connection): Promise<{ markers: Set<string>; created: string | undefined }> {
  const markers = new Set(await targetIds(connection));
  if (markers.size > 0) {
    return { markers, created: undefined };
  }
  const { targetId } = await connection.send('Target.createTarget', { url: 'about:blank', background: true });
  return { markers: new Set([targetId]), created: targetId };
}

async function targetIds(connection: Connection): Promise<string[]> {
  const parsed = targetsSchema.safeParse(await connection.send('Target.getTargets'));
  return parsed.success ? parsed.data.targetInfos.filter((target) => target.type !== 'browser').map((target) => target.targetId) : [];
}

/** Whether a connection to `url` sees one of the daemon's targets. */
async function reachesSameBrowser(url: string, options: SharedEndpointOptions, markers: Set<string>): Promise<boolean> {
  let probe: Connection | undefined;
  try {
    probe = await openCdpConnection(url, { headers: options.headers, shownUrl: options.shownUrl, handshakeTimeoutMs: DISCOVERY_TIMEOUT_MS });
    return (await targetIds(probe)).some((id) => markers.has(id));
  } catch (error) {
    const failure = TabmuxError.from(error);
    if (failure.code === 'browser_busy') {
      throw failure;
    }
    options.logger.debug(`a second connection to ${options.shownUrl} failed: ${failure.message}`);
    return false;
  } finally {
    probe?.dispose();
  }
}

/** browserless: the `/devtools/browser/<browserId>` of the browser holding one of the daemon's targets. */
async function browserlessEndpoint(options: SharedEndpointOptions, markers: Set<string>): Promise<string | undefined> {
  const socketUrl = new URL(options.url);
  const listUrl = new URL('/sessions', socketUrl);
  listUrl.protocol = socketUrl.protocol === 'wss:' ? 'https:' : 'http:';
  // The engine's token travels in the query string, as on the WebSocket.
  listUrl.search = socketUrl.search;
  let body: unknown;
  try {
    const response = await fetch(listUrl, { headers: { ...options.headers }, signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
    if (!response.ok) {
      return undefined;
    }
    body = await response.json();
  } catch {
    return undefined;
  }
  const parsed = sessionsSchema.safeParse(body);
  const browserId = parsed.success ? parsed.data.find((entry) => markers.has(entry.id) && entry.browserId !== undefined)?.browserId : undefined;
  if (browserId === undefined || !/^[\w-]+$/.test(browserId)) {
    return undefined;
  }
  const shared = new URL(`/devtools/browser/${browserId}`, socketUrl);
  shared.search = socketUrl.search;
  return shared.toString();
}
