import type { ActivityPage } from '../../../shared/activity.js';
import type { TabmuxError } from '../../../shared/errors.js';
import type { ToolResult } from '../../../shared/protocol.js';

/**
 * One agent call as the router saw it, handed to whoever keeps the activity log. Pages and URLs come from the
 * router's own knowledge (the browser's tab list on the daemon's CDP connection, upstream's structured page list),
 * never from the answer's text. The arguments are the agent's, unredacted: the observer redacts them.
 */
export interface CallRecord {
  sessionId: string;
  label: string | null;
  tool: string;
  args: Record<string, unknown>;
  at: number;
  durationMs: number;
  /** The answer, when there was one (ok or a tool error). */
  result?: ToolResult | undefined;
  /** Why there was no answer (a router refusal, a timeout, a crash). */
  error?: TabmuxError | undefined;
  pageBefore: ActivityPage | null;
  pageAfter: ActivityPage | null;
  /** Chrome's tab id of the session's current page after the call, when known (for a picture of it). */
  tabAfter: string | null;
  opened: ActivityPage[];
}

/**
 * Told about every agent call once it is answered, before the reply goes; the reply waits for the promise (the
 * activity log's write, which bounds its own wait), so it must not take long and must never reject.
 */
export type CallObserver = (call: CallRecord) => Promise<void> | void;

/** What is known of an agent call when it begins (see CallRecord). */
export type CallBegun = Pick<CallRecord, 'sessionId' | 'label' | 'tool' | 'at' | 'pageBefore'>;

/** Told when an agent call begins; returns what to call when it ends. Must be quick and never throw. */
export type CallBeginObserver = (call: CallBegun) => () => void;

/**
 * Text a page wrote that an answer carries and the activity log keeps out like a typed value: an open dialog's
 * message and default value, from upstream's structured data (the answer's text cannot tell them apart from the rest
 * of the page). Kept under a symbol, which goes with the result through the router's copies (`{...result}`) and never
 * onto the wire (JSON has no symbols).
 */
const PAGE_SECRETS = Symbol('tabmux.pageSecrets');

export function withPageSecrets(result: ToolResult, secrets: readonly string[]): ToolResult {
  const kept = secrets.filter((secret) => secret !== '');
  return kept.length === 0 ? result : { ...result, [PAGE_SECRETS]: kept };
}

export function pageSecretsOf(result: ToolResult | undefined): string[] {
  if (result === undefined || !(PAGE_SECRETS in result)) {
    return [];
  }
  const value: unknown = result[PAGE_SECRETS];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
