import type { JsonRpcId } from '../../../shared/jsonrpc.js';

const REPLY_HEAD = Buffer.from('{"jsonrpc":"2.0","id":');
const RESULT_KEY = Buffer.from(',"result":');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Longer whole numbers are left to a full parse. */
const MAX_ID_DIGITS = 15;

export interface ReplyHead {
  id: JsonRpcId;
  /** Where the result's JSON starts, for a successful reply; undefined for an error. */
  resultAt: number | undefined;
}

/**
 * The id of a reply line laid out as the daemon writes one, with `JSON.stringify` of `{jsonrpc, id, result}` (or
 * `error`) and no white space, and where its result starts. Read from the line's first bytes by their structure, so
 * text later in the line (a page's) is never looked at. Only a whole-number id, or a string id without escapes, is
 * read here; undefined for any other line, which a caller parses in full.
 */
export function replyHead(line: Buffer): ReplyHead | undefined {
  if (line.length <= REPLY_HEAD.length || line.compare(REPLY_HEAD, 0, REPLY_HEAD.length, 0, REPLY_HEAD.length) !== 0) {
    return undefined;
  }
  let at = REPLY_HEAD.length;
  let id: JsonRpcId;
  if (line[at] === QUOTE) {
    const close = line.indexOf(QUOTE, at + 1);
    const backslash = line.indexOf(BACKSLASH, at + 1);
    if (close === -1 || (backslash !== -1 && backslash < close)) {
      return undefined;
    }
    id = line.toString('utf8', at + 1, close);
    at = close + 1;
  } else {
    const start = at;
    while (at < line.length && at - start < MAX_ID_DIGITS && (line[at] ?? 0) >= DIGIT_0 && (line[at] ?? 0) <= DIGIT_9) {
      at += 1;
    }
    if (at === start || (line[start] === DIGIT_0 && at > start + 1)) {
      return undefined;
    }
    id = Number(line.toString('latin1', start, at));
  }
  if (line[at] !== COMMA) {
    return undefined;
  }
  const isResult = line.compare(RESULT_KEY, 0, RESULT_KEY.length, at, at + RESULT_KEY.length) === 0;
  return { id, resultAt: isResult ? at + RESULT_KEY.length : undefined };
}
