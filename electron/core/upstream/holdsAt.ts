/** Parts up to this long are compared a character at a time; longer ones as a slice. */
const SHORT_PART = 64;

/**
 * Whether `text` holds `part` from `at`. A short part is compared a character at a time, which makes no string (a
 * snapshot read line by line compares a few short parts per node, and a collection in the middle of a large one would
 * copy its whole young tree); a long one as a slice, V8's quickest way for it: the slice copies nothing, where
 * `startsWith` with a position is several times slower.
 */
export function holdsAt(text: string, at: number, part: string): boolean {
  const length = part.length;
  if (length > SHORT_PART) {
    return text.slice(at, at + length) === part;
  }
  for (let index = 0; index < length; index++) {
    if (text.charCodeAt(at + index) !== part.charCodeAt(index)) {
      return false;
    }
  }
  return true;
}
