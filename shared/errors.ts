/**
 * The closed set of tabmux error codes. Every failure that crosses a process boundary carries one, so callers
 * (agents, scripts, the UI) can tell an expected refusal from a bug and know what to do next.
 */
// Each code maps to whether it is expected (a caller's mistake or a known condition) rather than a defect.
const CODES = {
  parse_error: true,
  line_too_long: true,
  response_too_large: true,
  invalid_request: true,
  unknown_method: true,
  invalid_params: true,
  protocol_mismatch: true,
  hello_required: true,
  not_bound: true,
  already_bound: true,
  unknown_session: true,
  session_expired: true,
  session_owned: true,
  session_closed: true,
  session_paused: true,
  bad_token: true,
  foreign_token: true,
  stale_token: true,
  page_conflict: true,
  unknown_page: true,
  no_page: true,
  unknown_tool: true,
  tool_blocked: true,
  path_denied: true,
  url_denied: true,
  resource_busy: true,
  dialog_open: true,
  page_crashed: true,
  folder_full: true,
  request_gone: true,
  policy_denied: true,
  upstream_failed: false,
  upstream_unavailable: false,
  timeout: true,
  cancelled: true,
  daemon_stopping: true,
  /** A restart told this call before it ran that it would not run: sending it again is its first run. */
  daemon_restarting: true,
  daemon_not_running: true,
  not_delivered: true,
  daemon_crashed: false,
  daemon_running: true,
  daemon_busy: true,
  daemon_unresponsive: true,
  daemon_start_failed: true,
  port_in_use: true,
  dashboard_unreachable: true,
  invalid_profile: true,
  profile_exists: true,
  chrome_not_found: true,
  browser_unavailable: true,
  browser_busy: true,
  profile_locked: true,
  insecure_runtime_dir: true,
  internal: false,
} as const satisfies Record<string, boolean>;

export type ErrorCode = keyof typeof CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(CODES, value);
}

/** The codes that mean a session id no longer exists in the daemon: never known, closed, or expired. */
const SESSION_GONE = ['unknown_session', 'session_closed', 'session_expired'] as const satisfies readonly ErrorCode[];

export type SessionGoneCode = (typeof SESSION_GONE)[number];

/** Whether an error code (from an error or a result's metadata) says the session is gone, so a client starts anew. */
export function isSessionGone(code: unknown): code is SessionGoneCode {
  return SESSION_GONE.some((gone) => gone === code);
}

/** JSON-RPC error code used on the wire for every tabmux error; the tabmux code travels in `data.code`. */
export const JSONRPC_TABMUX_ERROR = -32000;

export interface WireError {
  code: number;
  message: string;
  data?: { code: ErrorCode };
}

const JSONRPC_CODES: Partial<Record<ErrorCode, number>> = {
  parse_error: -32700,
  line_too_long: -32700,
  invalid_request: -32600,
  unknown_method: -32601,
  invalid_params: -32602,
};

export class TabmuxError extends Error {
  override readonly name = 'TabmuxError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get expected(): boolean {
    return CODES[this.code];
  }

  toWire(): WireError {
    return { code: JSONRPC_CODES[this.code] ?? JSONRPC_TABMUX_ERROR, message: this.message, data: { code: this.code } };
  }

  static fromWire(error: WireError): TabmuxError {
    const code = error.data && isErrorCode(error.data.code) ? error.data.code : codeFromJsonRpc(error.code);
    return new TabmuxError(code, error.message);
  }

  /** Wraps anything thrown into a TabmuxError; unknown throwables become `internal`. */
  static from(error: unknown): TabmuxError {
    if (error instanceof TabmuxError) {
      return error;
    }
    const message = error instanceof Error ? error.message : String(error);
    return new TabmuxError('internal', message, { cause: error });
  }
}

function codeFromJsonRpc(code: number): ErrorCode {
  for (const [name, value] of Object.entries(JSONRPC_CODES)) {
    if (value === code && isErrorCode(name)) {
      return name;
    }
  }
  return 'internal';
}
