/** How long ago `then` was, relative to `now`: `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function formatRelativeTime(then: number, now: number): string {
  const seconds = Math.floor(Math.max(0, now - then) / 1000);
  if (seconds < 5) {
    return 'just now';
  }
  if (seconds < 60) {
    return `${seconds} s ago`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 48) {
    return `${hours} h ago`;
  }
  return `${Math.floor(hours / 24)} d ago`;
}
