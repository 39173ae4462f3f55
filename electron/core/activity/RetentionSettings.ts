/** How much of the activity log (and of the pictures its entries point to) is kept on disk. */
export interface RetentionSettings {
  /** The log's total size; the oldest segments go first when it is over. */
  maxBytes: number;
  /** Segments whose newest entry is older than this are removed. */
  maxAgeMs: number;
}

export const DEFAULT_RETENTION: RetentionSettings = { maxBytes: 50 * 1024 * 1024, maxAgeMs: 30 * 24 * 60 * 60_000 };
