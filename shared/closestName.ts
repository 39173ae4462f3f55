/**
 * The candidate a mistyped name most likely meant: the one fewest single-character edits away (an insertion, a
 * deletion, a substitution, or two neighbours swapped), if that is at most `maxEdits` and no other candidate is as
 * close; undefined otherwise, so a guess is offered only when there is one clear guess.
 */
export function closestName(name: string, candidates: Iterable<string>, maxEdits = 2): string | undefined {
  let best: string | undefined;
  let bestEdits = maxEdits + 1;
  let tied = false;
  for (const candidate of candidates) {
    // Exact up to the best so far; anything farther counts as bestEdits + 1, which neither wins nor ties.
    const edits = editDistance(name.toLowerCase(), candidate.toLowerCase(), bestEdits + 1);
    if (edits < bestEdits) {
      best = candidate;
      bestEdits = edits;
      tied = false;
    } else if (edits === bestEdits) {
      tied = true;
    }
  }
  return best !== undefined && !tied && bestEdits <= maxEdits ? best : undefined;
}

/** Optimal string alignment distance between `a` and `b`, or `limit` once it is sure to be at least that. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) {
    return limit;
  }
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (before[j - 2] ?? 0) + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= limit) {
      return limit;
    }
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] ?? limit, limit);
}
