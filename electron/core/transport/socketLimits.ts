/**
 * Size limits of the daemon socket. Each line is one JSON-RPC message, held whole in memory on both sides, so every
 * limit bounds what one peer can make the other buffer.
 */

/** Longest request line the daemon reads; a longer one is dropped and answered with `line_too_long`. */
export const MAX_REQUEST_LINE_BYTES = 4 * 1024 * 1024;

/** Default longest reply line: snapshots of very large pages fit; anything longer is refused as `response_too_large`. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Default bound on the events queued for one subscriber that is not reading; past it the daemon drops that
 * connection rather than buffer without end (the subscriber reconnects and loads a fresh status).
 */
export const DEFAULT_MAX_EVENT_BACKLOG_BYTES = 8 * 1024 * 1024;

/** The reply limit, lowered by `TABMUX_MAX_RESPONSE_BYTES` (never raised: clients accept up to the default). */
export function maxResponseBytes(env: NodeJS.ProcessEnv = process.env): number {
  return limitFrom(env['TABMUX_MAX_RESPONSE_BYTES'], DEFAULT_MAX_RESPONSE_BYTES);
}

/** The per-subscriber event backlog, lowered by `TABMUX_MAX_EVENT_BACKLOG_BYTES`. */
export function maxEventBacklogBytes(env: NodeJS.ProcessEnv = process.env): number {
  return limitFrom(env['TABMUX_MAX_EVENT_BACKLOG_BYTES'], DEFAULT_MAX_EVENT_BACKLOG_BYTES);
}

function limitFrom(value: string | undefined, fallback: number): number {
  if (value === undefined || !/^\d+$/.test(value.trim())) {
    return fallback;
  }
  const parsed = Number(value.trim());
  return parsed > 0 ? Math.min(parsed, fallback) : fallback;
}
