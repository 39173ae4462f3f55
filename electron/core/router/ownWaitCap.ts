/** Tools whose `timeout` argument is a wait of their own inside upstream (a text to appear, a page to load). */
const OWN_WAIT_TOOLS: ReadonlySet<string> = new Set(['wait_for', 'navigate_page', 'new_page']);

/** Room left between a capped wait and the call's own time limit, for upstream to answer with its own error. */
const ANSWER_MARGIN_MS = 1000;

/** The shortest wait a cap leaves, however short the call's time limit. */
const MIN_WAIT_MS = 500;

/** Upstream's own default for these waits when `timeout` is absent or 0. */
const UPSTREAM_DEFAULT_WAIT_MS = 10_000;

/**
 * Keeps a tool's own waiting time inside the call's time limit, so that upstream ends the wait itself and answers
 * (with its own "timed out" error) instead of holding its worker past the limit. Returns the arguments to send and,
 * when the agent's own value was lowered, a note that says so.
 */
export function capOwnWait(tool: string, args: Record<string, unknown>, callTimeoutMs: number): { args: Record<string, unknown>; note?: string } {
  if (!OWN_WAIT_TOOLS.has(tool)) {
    return { args };
  }
  const cap = Math.max(MIN_WAIT_MS, callTimeoutMs - ANSWER_MARGIN_MS);
  const asked = args['timeout'];
  if (typeof asked === 'number' && asked > 0) {
    if (asked <= cap) {
      return { args };
    }
    return {
      args: { ...args, timeout: cap },
      note: `Note: timeout lowered from ${asked} ms to ${cap} ms, within this call's time limit of ${callTimeoutMs} ms (the profile's callTimeoutMs or toolTimeoutsMs).`,
    };
  }
  // No wait asked for: upstream's default applies, unless it would outlast the call.
  return cap < UPSTREAM_DEFAULT_WAIT_MS ? { args: { ...args, timeout: cap } } : { args };
}
