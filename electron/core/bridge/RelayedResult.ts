import type { ToolResult } from '../../../shared/protocol.js';
import { asToolResult } from '../../../shared/toolResult.js';

/**
 * A tool result as the daemon serialized it: the JSON bytes of the `result` member of its reply, which the stdio
 * server writes under the client's request id as they are. The daemon is the same tabmux (checked in the hello) and
 * builds every tool result itself, so the bridge need not parse what it only passes on.
 */
export class RelayedResult {
  constructor(readonly json: Buffer) {}

  /** The result read back, for a caller that must look inside it. */
  toToolResult(): ToolResult {
    return asToolResult(JSON.parse(this.json.toString('utf8')));
  }
}

/** Either kind of bridge result as a plain tool result. */
export function plainResult(result: ToolResult | RelayedResult): ToolResult {
  return result instanceof RelayedResult ? result.toToolResult() : result;
}
