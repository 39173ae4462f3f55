/** Which rows of a fixed-height list are drawn: those in view plus a margin, so scrolling never shows a gap. */
export function timelineWindow(count: number, rowHeight: number, scrollTop: number, viewHeight: number, overscan = 10): { first: number; last: number } {
  if (count === 0) {
    return { first: 0, last: 0 };
  }
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewHeight) / rowHeight) + overscan);
  return { first, last: Math.max(first, last) };
}
