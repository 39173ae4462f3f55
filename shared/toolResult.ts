import { isRecord } from './isRecord.js';
import type { ToolContent, ToolResult } from './protocol.js';

export function textOf(result: ToolResult): string {
  return result.content
    .filter((item) => item.type === 'text')
    .map((item) => item.text ?? '')
    .join('\n');
}

export function textResult(text: string, isError = false): ToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

/** Maps the text items of a result, leaving images and other content as they are. */
export function mapText(result: ToolResult, map: (text: string) => string): ToolResult {
  const content: ToolContent[] = result.content.map((item) => (item.type === 'text' && typeof item.text === 'string' ? { ...item, text: map(item.text) } : item));
  return { ...result, content };
}

/** Narrows what the MCP SDK returned to the result shape the router works with. */
export function asToolResult(value: unknown): ToolResult {
  if (!isRecord(value) || !Array.isArray(value['content'])) {
    return textResult('Error: upstream returned a result without content', true);
  }
  const content: ToolContent[] = value['content'].filter(isRecord).map((item) => ({ ...item, type: typeof item['type'] === 'string' ? item['type'] : 'unknown' }));
  const result: ToolResult = { ...value, content };
  if (value['isError'] === true) {
    result.isError = true;
  } else {
    delete result.isError;
  }
  return result;
}
