/**
 * The closed set of tabmux error codes. Every failure that crosses a process boundary carries one, so callers
 * (agents, scripts, the UI) can tell an expected refusal from a bug and know what to do next.
 */
export const ERROR_CODES = [
  'parse_error',
  'line_too_long',
  'invalid_request',
  'unknown_method',
  'invalid_params',
  'protocol_mismatch',
  'hello_required',
  'not_bound',
  'already_bound',
  'unknown_session',
  'session_expired',
  'session_owned',
  'session_closed',
  'session_paused',
  'bad_token',
  'foreign_token',
  'stale_token',
  'page_conflict',
  'unknown_page',
  'no_page',
  'unknown_tool',
  'tool_blocked',
  'upstream_failed',
  'upstream_unavailable',
  'timeout',
  'cancelled',
  'daemon_stopping',
  'daemon_not_running',
  'invalid_profile',
  'profile_exists',
  'chrome_not_found',
  'chrome_failed',
  'profile_locked',
  'insecure_runtime_dir',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Codes that describe a caller's mistake or an expected condition rather than a defect in tabmux. */
const EXPECTED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'parse_error',
  'line_too_long',
  'invalid_request',
  'unknown_method',
  'invalid_params',
  'protocol_mismatch',
  'hello_required',
  'not_bound',
  'already_bound',
  'unknown_session',
  'session_expired',
  'session_owned',
  'session_closed',
  'session_paused',
  'bad_token',
  'foreign_token',
  'stale_token',
  'page_conflict',
  'unknown_page',
  'no_page',
  'unknown_tool',
  'tool_blocked',
  'timeout',
  'cancelled',
  'daemon_stopping',
  'daemon_not_running',
  'invalid_profile',
  'profile_exists',
  'chrome_not_found',
  'profile_locked',
  'insecure_runtime_dir',
]);

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
    return EXPECTED.has(this.code);
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
