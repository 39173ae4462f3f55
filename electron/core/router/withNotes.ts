import type { ToolResult } from '../../../shared/protocol.js';
import type { Session } from './Session.js';

/** Puts the session's pending notes in front of the result text, once. */
export function withNotes(session: Pick<Session, 'notes'>, result: ToolResult): ToolResult {
  if (session.notes.length === 0) {
    return result;
  }
  const notes = session.notes.join('\n');
  session.notes = [];
  const [first, ...rest] = result.content;
  if (first?.type === 'text' && typeof first.text === 'string') {
    return { ...result, content: [{ ...first, text: `${notes}\n${first.text}` }, ...rest] };
  }
  return { ...result, content: [{ type: 'text', text: notes }, ...result.content] };
}
