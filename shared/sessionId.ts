/** A session id as the daemon makes them: `sess-` and 16 hex digits. */
export const SESSION_ID_PATTERN = /^sess-[0-9a-f]{16}$/;
