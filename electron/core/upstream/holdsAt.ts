/**
 * Whether `text` holds `part` from `at`. A slice compared is V8's quickest way: it copies nothing, where `startsWith`
 * with a position is several times slower.
 */
export function holdsAt(text: string, at: number, part: string): boolean {
  return text.slice(at, at + part.length) === part;
}
