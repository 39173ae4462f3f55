import type { ToolResult } from '../../shared/protocol.js';
import { textOf } from '../../shared/toolResult.js';

/** Anything that runs one MCP tool call: a bound tabmux session or a direct upstream child on one of its pages. */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

/** A tool error during a benchmark means the setup is broken, not that a goal was missed: stop the run. */
export function okText(result: ToolResult, what: string): string {
  const text = textOf(result);
  if (result.isError) {
    throw new Error(`${what} failed: ${text.slice(0, 500)}`);
  }
  return text;
}

/** The page marked `[selected]` in a `## Pages` list: upstream's new_page answers with the list, the new page selected. */
export function selectedPageId(text: string): number {
  const match = /^(\d+): .*\[selected\]/m.exec(text);
  if (!match?.[1]) {
    throw new Error(`no selected page in:\n${text.slice(0, 500)}`);
  }
  return Number.parseInt(match[1], 10);
}

export const QUICK_EVAL = { function: '() => 1', waitForStableDom: false } as const;

/** A call that spends 500 ms waiting inside the page, as a slow agent step would, without using CPU. */
export const WAIT_500_EVAL = { function: 'async () => { await new Promise((resolve) => setTimeout(resolve, 500)); return 1; }', waitForStableDom: false } as const;
