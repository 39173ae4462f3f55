import type { ActivityOutcome } from './activity.js';
import type { TabmuxError } from './errors.js';
import type { ToolResult } from './protocol.js';

/** What became of a call, from its answer or the error that stood in for one. */
export function outcomeOf(result: ToolResult | undefined, error: TabmuxError | undefined): ActivityOutcome {
  if (!error) {
    return result?.isError === true ? 'tool_error' : 'ok';
  }
  switch (error.code) {
    case 'cancelled':
    case 'daemon_stopping':
    case 'daemon_restarting':
      return 'cancelled';
    case 'timeout':
      return 'timed_out';
    case 'upstream_unavailable':
    case 'browser_unavailable':
      return 'worker_crashed';
    default:
      return error.expected ? 'rejected' : 'failed';
  }
}
