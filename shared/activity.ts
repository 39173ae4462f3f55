import * as z from 'zod/mini';
import './zodMessages.js';

/**
 * One agent call as the activity log keeps it: one JSON line per call in the profile's log files, one element of
 * `tabmux/log.query`, one `activity` event. Times are epoch milliseconds. Arguments are stored after redaction
 * (see docs/activity-log.md); `redacted` names the argument paths whose values were replaced.
 */
export const ACTIVITY_FORMAT_VERSION = 1;

/**
 * `ok`: upstream answered; `tool_error`: upstream answered with isError; `rejected`: the router refused the call
 * before or instead of upstream (the error code says why: stale_token, url_denied, ...); `cancelled`: dropped from
 * the queue; `timed_out`: no answer within the call's timeout; `worker_crashed`: the upstream worker died or was
 * unavailable; `failed`: anything else that went wrong (a defect or an upstream failure).
 */
export const ACTIVITY_OUTCOMES = ['ok', 'tool_error', 'rejected', 'cancelled', 'timed_out', 'worker_crashed', 'failed'] as const;
export const activityOutcomeSchema = z.enum(ACTIVITY_OUTCOMES);
export type ActivityOutcome = z.output<typeof activityOutcomeSchema>;

const activityPageSchema = z.lazy(() => z.object({ pageId: z.number(), url: z.string() }));
export type ActivityPage = z.output<typeof activityPageSchema>;

export const activityEntrySchema = z.lazy(() => z.object({
  v: z.literal(ACTIVITY_FORMAT_VERSION),
  /** Unique within the profile: the daemon's start time and a counter, both base 36. */
  id: z.string(),
  session: z.string(),
  label: z.nullable(z.string()),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  redacted: z.array(z.string()),
  /** When the call reached the router. */
  at: z.number(),
  /** Until the call was answered, queue wait included. */
  durationMs: z.number(),
  outcome: activityOutcomeSchema,
  /** The tabmux error code and message for router refusals and failures; null otherwise. */
  error: z.nullable(z.object({ code: z.string(), message: z.string() })),
  /** The start of the answer's text (at most 200 characters), with redacted values removed. */
  summary: z.string(),
  pageBefore: z.nullable(activityPageSchema),
  pageAfter: z.nullable(activityPageSchema),
  /** Tabs that became the session's during the call (new_page, popups). */
  opened: z.array(activityPageSchema),
  /**
   * A small picture of the session's tab after a page-changing call: the name of a JPEG beside the log (written
   * shortly after the entry; missing when it could not be taken). Absent for other calls.
   */
  picture: z.optional(z.string().check(z.regex(/^[\w-]+\.jpg$/))),
}));
export type ActivityEntry = z.output<typeof activityEntrySchema>;

export const activityQuerySchema = z.lazy(() => z.object({
  session: z.optional(z.string().check(z.maxLength(64))).check(z.describe('Only this session')),
  since: z.optional(z.number()).check(z.describe('Only calls that started at or after this time (epoch ms)')),
  tools: z.optional(z.array(z.string().check(z.maxLength(128))).check(z.maxLength(200))).check(z.describe('Only calls of these tools')),
  outcomes: z.optional(z.array(activityOutcomeSchema)).check(z.describe('Only calls that ended so')),
  limit: z._default(z.int().check(z.positive(), z.maximum(100_000)), 1000).check(z.describe('At most this many, the newest')),
}));
export type ActivityQuery = z.input<typeof activityQuerySchema>;

export const activityQueryResultSchema = z.lazy(() => z.object({
  entries: z.array(activityEntrySchema),
  /** True when more entries matched than `limit`; the oldest were left out. */
  truncated: z.boolean(),
}));
export type ActivityQueryResult = z.output<typeof activityQueryResultSchema>;
