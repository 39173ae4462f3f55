/**
 * Session uid tokens. Upstream snapshot uids (`<snapshotId>_<n>`) mean something only to the worker process and page
 * that produced them, so agents never see them: each becomes `u:<session-short>:<epoch>:<raw>`, and tokens are
 * translated back (and checked) before a call reaches upstream. Finding uids in upstream's text is `upstreamText`'s job.
 */

const TOKEN = /^u:([0-9a-f]{4,16}):(\d{1,9}):(\d+_\d+)$/;

export interface ParsedToken {
  short: string;
  epoch: number;
  raw: string;
}

export function formatToken(short: string, epoch: number, raw: string): string {
  return `u:${short}:${epoch}:${raw}`;
}

export function parseToken(value: string): ParsedToken | undefined {
  const match = TOKEN.exec(value);
  if (!match?.[1] || !match[2] || !match[3]) {
    return undefined;
  }
  return { short: match[1], epoch: Number.parseInt(match[2], 10), raw: match[3] };
}

/** Where uids appear in tool inputs of the pinned upstream. */
export interface UidFieldPaths {
  /** Top-level string fields holding one uid. */
  scalar: readonly string[];
  /** Top-level array fields of uid strings. */
  stringArrays: readonly string[];
  /** Top-level array fields of objects with a `uid` field. */
  objectArrays: readonly string[];
}

export const UID_FIELDS: UidFieldPaths = {
  scalar: ['uid', 'from_uid', 'to_uid'],
  stringArrays: ['args'],
  objectArrays: ['elements'],
};

/**
 * Maps every uid-bearing input through `translate` (which throws on a bad token) and returns a new arguments
 * object. Non-uid fields are left as they are.
 */
export function translateInputUids(args: Readonly<Record<string, unknown>>, translate: (token: string, field: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...args };
  for (const field of UID_FIELDS.scalar) {
    const value = out[field];
    if (typeof value === 'string') {
      out[field] = translate(value, field);
    }
  }
  for (const field of UID_FIELDS.stringArrays) {
    const value = out[field];
    if (Array.isArray(value)) {
      out[field] = value.map((item: unknown, index) => (typeof item === 'string' ? translate(item, `${field}[${index}]`) : item));
    }
  }
  for (const field of UID_FIELDS.objectArrays) {
    const value = out[field];
    if (Array.isArray(value)) {
      out[field] = value.map((item: unknown, index) => {
        if (typeof item === 'object' && item !== null && !Array.isArray(item) && 'uid' in item) {
          const uid: unknown = item.uid;
          if (typeof uid === 'string') {
            return { ...item, uid: translate(uid, `${field}[${index}].uid`) };
          }
        }
        return item;
      });
    }
  }
  return out;
}
