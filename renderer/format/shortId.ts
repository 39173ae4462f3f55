/** `sess-0123456789abcdef` → `01234567`: enough to tell sessions apart at a glance; the full id is in the title. */
export function shortId(sessionId: string): string {
  return sessionId.replace(/^sess-/, '').slice(0, 8);
}
