import type { JsonRpcId } from '../../../shared/jsonrpc.js';
import { leadingId } from '../../../shared/leadingId.js';

/** Which of this side's requests a line that could not be read answered. */
export type DroppedAnswer = { kind: 'answer'; id: JsonRpcId } | { kind: 'not_an_answer' } | { kind: 'unknown' };

/** A request or notification from the server starts with its method; it answers nothing this side asked. */
const SERVER_MESSAGE_START = /^\s*\{\s*"method"\s*:/;

/**
 * The MCP SDK server writes a response as `{"result":…,"jsonrpc":"2.0","id":N}`: the id is the last member, after
 * the result's closing brace. Everything a page writes is inside the result, so nothing it writes can come after
 * that closing: anchored at the line's end, this pattern reads only the server's own envelope.
 */
const TRAILING_ID = /\},"jsonrpc":"2\.0","id":(0|[1-9][0-9]{0,14})\}\s*$/;

/**
 * Finds the request a dropped line answered, from its first bytes (`head`: an error response names its id early)
 * or its last bytes (`tail`: a result response names it last). Only ids of requests still waiting count, so a line
 * can never answer a request twice or one this side never sent.
 */
export function droppedAnswerId(head: string, tail: string, waiting: ReadonlySet<JsonRpcId>): DroppedAnswer {
  if (SERVER_MESSAGE_START.test(head)) {
    return { kind: 'not_an_answer' };
  }
  const early = leadingId(head);
  if (early !== undefined && waiting.has(early)) {
    return { kind: 'answer', id: early };
  }
  const match = TRAILING_ID.exec(tail);
  const late = match?.[1] === undefined ? undefined : Number(match[1]);
  if (late !== undefined && waiting.has(late)) {
    return { kind: 'answer', id: late };
  }
  return { kind: 'unknown' };
}
